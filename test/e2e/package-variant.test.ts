import { execFileSync } from "node:child_process";
import { createGitRepository, kptfile, registerRepository, revision } from "../support/git";
import {
  createNamespace,
  deleteNamespace,
  getJson,
  kubectlOk,
  listJson,
  mergePatch,
  grantModuleRead,
} from "../support/kubectl";
import {
  condition,
  files,
  killControllers,
  PR,
  publish,
  publishCopy,
  rendered,
  setFiles,
  yamlOf,
} from "../support/package-revisions";
import { eventually } from "../support/wait";

// The PackageVariant controller end to end, by kubectl, with real git repositories.
interface PV {
  metadata: { name: string; finalizers?: string[] };
  status?: {
    conditions?: { type: string; status: string; reason: string; message: string }[];
    downstreamTargets?: { name: string }[];
  };
}

let ns: string;
let deploymentsUrl: string;
const apply = (yaml: string) => kubectlOk(["apply", "-n", ns, "-f", "-"], yaml);
const pipeline = (tag: string) =>
  `pipeline:\n  mutators:\n    - name: labels\n      image: gcr.io/kpt-fn/set-labels:${tag}\n      configMap:\n        tier: base\n`;
const quota = (cpu: string) =>
  `apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: quota\nspec:\n  hard:\n    cpu: "${cpu}"\n    memory: 1Gi\n`;
const endpoints = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endpoints\n  annotations:\n    kpt.dev/config-injection: required\n    config.kubernetes.io/local-config: "true"\ndata:\n  db: unset\n`;
const siteCr = `apiVersion: e2e.porch.dev/v1\nkind: SiteConfig\nmetadata:\n  name: site\n  annotations:\n    kpt.dev/config-injection: optional\nspec:\n  zone: unset\n`;
const base = (cpu: string) => ({
  Kptfile: kptfile("base", pipeline("v0.2.0")),
  "quota.yaml": quota(cpu),
});
const app = { Kptfile: kptfile("app"), "endpoints.yaml": endpoints, "site.yaml": siteCr };

const pvYaml = (name: string, spec: string) =>
  `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: ${name}\nspec:\n${spec}`;
const pvOf = (name: string) => getJson<PV>("packagevariant", name, ns);
const owned = (pkg: string) =>
  listJson<PR>("packagerevisions", ns).filter(
    pr => pr.spec.repository === "deployments" && pr.spec.packageName === pkg,
  );
const drafts = (pkg: string) => owned(pkg).filter(pr => pr.spec.lifecycle === "Draft");
const oneDraft = (pkg: string) =>
  eventually(
    `one draft of ${pkg}`,
    () => (drafts(pkg).length === 1 ? drafts(pkg)[0] : undefined),
    60_000,
  );
const ready = (name: string) =>
  eventually(
    `${name} Ready`,
    () => (condition(pvOf(name) as PR, "Ready")?.status === "True" ? pvOf(name) : undefined),
    60_000,
  );

beforeAll(async () => {
  ns = createNamespace("e2e-pv");
  apply(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: siteconfigs.e2e.porch.dev}
spec:
  group: e2e.porch.dev
  names: {kind: SiteConfig, plural: siteconfigs, singular: siteconfig}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
`);
  kubectlOk(["wait", "--for=condition=Established", "crd/siteconfigs.e2e.porch.dev"]);
  grantModuleRead("e2e.porch.dev", "siteconfigs");
  const blueprints = await createGitRepository("blueprints", [
    { name: "base", revisions: [revision("v1", base("1"))] },
    { name: "app", revisions: [revision("v1", app)] },
  ]);
  deploymentsUrl = await createGitRepository("deployments");
  registerRepository(ns, "blueprints", blueprints);
  registerRepository(ns, "deployments", deploymentsUrl, { deployment: true });
  await eventually("blueprints mirrored", () =>
    getJson("packagerevision", "blueprints.app.v1", ns),
  );
});
afterAll(() => deleteNamespace(ns));

describe("NO_DOWNSTREAM → clone, with the mutations", () => {
  it("clones into a packagevariant-1 draft with package context and prepended functions", async () => {
    apply(
      pvYaml(
        "team-a",
        `  upstream: {repo: blueprints, package: base, revision: 1}
  downstream: {repo: deployments, package: team-a}
  labels: {team: a}
  packageContext: {data: {region: eu}}
  pipeline:
    mutators:
      - {name: ns, image: gcr.io/kpt-fn/set-namespace:v0.4.1, configMap: {namespace: team-a}}
`,
      ),
    );
    const draft = await oneDraft("team-a");
    expect(draft.metadata.name).toBe("deployments.team-a.packagevariant-1");
    expect(draft.metadata.labels?.team).toBe("a");
    const pr = await eventually(
      "mutated and rendered",
      async () => {
        const r = await rendered(ns, draft.metadata.name);
        return yamlOf(ns, draft.metadata.name, "quota.yaml")?.metadata?.namespace === "team-a"
          ? r
          : undefined;
      },
      60_000,
    );
    expect(pr.status?.creationSource).toBe("clone");
    const kpt = yamlOf(ns, draft.metadata.name, "Kptfile");
    expect(kpt.pipeline.mutators.map((m: { name: string }) => m.name)).toEqual([
      "PackageVariant.team-a.ns.0",
      "labels",
    ]);
    expect(yamlOf(ns, draft.metadata.name, "package-context.yaml").data).toMatchObject({
      name: "team-a",
      region: "eu",
    });
    expect(yamlOf(ns, draft.metadata.name, "quota.yaml").metadata.labels).toEqual({ tier: "base" });
    const pv = await ready("team-a");
    expect(pv?.status?.downstreamTargets).toEqual([
      expect.objectContaining({ name: draft.metadata.name }),
    ]);
    expect(pv?.metadata.finalizers).toContain("config.porch.kpt.dev/packagevariants");
  });
});

describe("UPSTREAM_CHANGED → upgrade draft", () => {
  it("keeps a local edit of the published downstream when the upstream moves from v1 to v2", async () => {
    const name = "deployments.team-a.packagevariant-1";
    const local = { ...files(ns, name) };
    local["quota.yaml"] = local["quota.yaml"].replace("memory: 1Gi", "memory: 4Gi");
    setFiles(ns, name, local);
    await rendered(ns, name);
    await publish(ns, name);

    await publishCopy(
      ns,
      getJson<PR>("packagerevision", "blueprints.base.v1", ns)!,
      "v2",
      base("2"),
    );

    mergePatch("packagevariant", "team-a", ns, { spec: { upstream: { revision: 2 } } });
    const upgrade = await oneDraft("team-a");
    expect(upgrade.metadata.name).toBe("deployments.team-a.packagevariant-2");
    await eventually(
      "upgraded content",
      async () => {
        await rendered(ns, upgrade.metadata.name);
        const q = yamlOf(ns, upgrade.metadata.name, "quota.yaml");
        return q?.spec?.hard?.cpu === "2" &&
          q.spec.hard.memory === "4Gi" &&
          q.metadata.namespace === "team-a"
          ? true
          : undefined;
      },
      60_000,
    );
    expect(
      getJson<PR>("packagerevision", upgrade.metadata.name, ns)?.status?.upstreamLock?.git?.ref,
    ).toBe("base/v2");
    const kpt = yamlOf(ns, upgrade.metadata.name, "Kptfile");
    expect(kpt.pipeline.mutators[0].name).toBe("PackageVariant.team-a.ns.0");
  });
});

describe("MUTATIONS_CHANGED on a published downstream → edit draft", () => {
  it("copies the published revision into a new draft with the new mutations, and its labels", async () => {
    // Someone's label and annotation on the downstream; publishing records who approved it.
    mergePatch("packagerevision", "deployments.team-a.packagevariant-2", ns, {
      metadata: { labels: { owner: "team-a" }, annotations: { ticket: "T-1" } },
    });
    await publish(ns, "deployments.team-a.packagevariant-2");
    mergePatch("packagevariant", "team-a", ns, {
      spec: { packageContext: { data: { region: "us" } } },
    });
    const edit = await oneDraft("team-a");
    expect(edit.metadata.name).toBe("deployments.team-a.packagevariant-3");
    await eventually(
      "edit draft mutated",
      () =>
        yamlOf(ns, edit.metadata.name, "package-context.yaml")?.data?.region === "us"
          ? true
          : undefined,
      60_000,
    );
    expect(getJson<PR>("packagerevision", edit.metadata.name, ns)?.status?.creationSource).toBe(
      "copy",
    );
    expect(edit.metadata.labels).toMatchObject({ owner: "team-a" });
    expect(edit.metadata.annotations).toMatchObject({ ticket: "T-1" });
    expect(edit.metadata.annotations?.["porch.kpt.dev/approved-by"]).toBeUndefined();
  });
});

describe("config injection", () => {
  it("injects a ConfigMap and a custom resource, and a change to them updates the draft", async () => {
    apply(
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: eu-endpoints}\ndata: {db: db.eu.example}\n`,
    );
    apply(
      `apiVersion: e2e.porch.dev/v1\nkind: SiteConfig\nmetadata: {name: paris}\nspec: {zone: eu-west-3}\n`,
    );
    apply(
      pvYaml(
        "app-eu",
        `  upstream: {repo: blueprints, package: app, workspaceName: v1}
  downstream: {repo: deployments, package: app-eu}
  injectors:
    - {kind: ConfigMap, name: eu-endpoints}
    - {group: e2e.porch.dev, kind: SiteConfig, name: paris}
`,
      ),
    );
    const draft = await oneDraft("app-eu");
    await eventually(
      "injected",
      () =>
        yamlOf(ns, draft.metadata.name, "endpoints.yaml")?.data?.db === "db.eu.example"
          ? true
          : undefined,
      60_000,
    );
    const site = yamlOf(ns, draft.metadata.name, "site.yaml");
    expect(site.spec).toEqual({ zone: "eu-west-3" });
    expect(site.metadata.annotations["kpt.dev/injected-resource-name"]).toBe("paris");
    const kpt = yamlOf(ns, draft.metadata.name, "Kptfile");
    expect(kpt.info.readinessGates).toEqual([
      { conditionType: "config.injection.ConfigMap.endpoints" },
    ]);
    expect(kpt.status.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: "config.injection.ConfigMap.endpoints",
          status: "True",
          reason: "ConfigInjected",
        }),
      ]),
    );

    mergePatch("siteconfig", "paris", ns, { spec: { zone: "eu-west-9" } });
    await eventually(
      "re-injected",
      () =>
        yamlOf(ns, draft.metadata.name, "site.yaml")?.spec?.zone === "eu-west-9" ? true : undefined,
      60_000,
    );
    mergePatch("configmap", "eu-endpoints", ns, { data: { db: "db2.eu.example" } });
    await eventually(
      "re-injected",
      () =>
        yamlOf(ns, draft.metadata.name, "endpoints.yaml")?.data?.db === "db2.eu.example"
          ? true
          : undefined,
      60_000,
    );
    expect(drafts("app-eu")).toHaveLength(1);
  });

  it("gates a required point only in a deployment repository: a blueprint variant is published unfilled", async () => {
    apply(
      pvYaml(
        "app-blueprint",
        `  upstream: {repo: blueprints, package: app, workspaceName: v1}
  downstream: {repo: blueprints, package: app-blueprint}
  injectors:
    - {kind: ConfigMap, name: not-there}
`,
      ),
    );
    const draft = await eventually(
      "the blueprint variant's draft, mutated",
      () => {
        const pr = listJson<PR>("packagerevisions", ns).find(
          p => p.spec.repository === "blueprints" && p.spec.packageName === "app-blueprint",
        );
        const kpt = pr && yamlOf(ns, pr.metadata.name, "Kptfile");
        const injected = kpt?.status?.conditions?.some(
          (c: { type: string }) => c.type === "config.injection.ConfigMap.endpoints",
        );
        return pr && injected ? { pr, kpt } : undefined;
      },
      60_000,
    );
    expect(draft.kpt.info?.readinessGates).toBeUndefined();
    expect(draft.kpt.status.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: "config.injection.ConfigMap.endpoints",
          status: "False",
          reason: "NoResourceSelected",
        }),
      ]),
    );
    await rendered(ns, draft.pr.metadata.name);
    await publish(ns, draft.pr.metadata.name);
  });
});

describe("adoption and deletion", () => {
  it("adopts an existing draft with adoptExisting", async () => {
    kubectlOk(
      ["apply", "-n", ns, "-f", "-"],
      JSON.stringify({
        apiVersion: "porch.kpt.dev/v1alpha2",
        kind: "PackageRevision",
        metadata: { name: "deployments.handmade.ws1" },
        spec: {
          packageName: "handmade",
          repository: "deployments",
          workspaceName: "ws1",
          lifecycle: "Draft",
          source: { cloneFrom: { upstreamRef: { name: "blueprints.base.v1" } } },
        },
      }),
    );
    await rendered(ns, "deployments.handmade.ws1");
    apply(
      pvYaml(
        "adopter",
        `  upstream: {repo: blueprints, package: base, revision: 1}
  downstream: {repo: deployments, package: handmade}
  adoptionPolicy: adoptExisting
  labels: {adopted: "yes"}
`,
      ),
    );
    const adopted = await eventually("adopted", () => {
      const pr = getJson<PR & { metadata: { ownerReferences?: { kind: string; name: string }[] } }>(
        "packagerevision",
        "deployments.handmade.ws1",
        ns,
      );
      return pr?.metadata.ownerReferences?.some(
        o => o.kind === "PackageVariant" && o.name === "adopter",
      )
        ? pr
        : undefined;
    });
    expect(adopted.metadata.labels?.adopted).toBe("yes");
    expect(owned("handmade")).toHaveLength(1);
  });

  it("deletionPolicy delete: drafts are deleted, published revisions proposed for deletion and let go", async () => {
    kubectlOk(["delete", "packagevariant", "team-a", "-n", ns, "--wait=false"]);
    await eventually("team-a gone", () => (pvOf("team-a") ? undefined : true), 60_000);
    await eventually(
      "edit draft deleted",
      () =>
        getJson("packagerevision", "deployments.team-a.packagevariant-3", ns) ? undefined : true,
      60_000,
    );
    const proposed = getJson<PR & { metadata: { ownerReferences?: { kind: string }[] } }>(
      "packagerevision",
      "deployments.team-a.packagevariant-2",
      ns,
    )!;
    expect(proposed.spec.lifecycle).toBe("DeletionProposed");
    expect(proposed.metadata.ownerReferences?.some(o => o.kind === "PackageVariant")).toBe(false);
  });

  it("deletionPolicy orphan: revisions stay, without the owner", async () => {
    mergePatch("packagevariant", "app-eu", ns, { spec: { deletionPolicy: "orphan" } });
    const name = drafts("app-eu")[0].metadata.name;
    kubectlOk(["delete", "packagevariant", "app-eu", "-n", ns]);
    const kept = getJson<PR & { metadata: { ownerReferences?: { kind: string }[] } }>(
      "packagerevision",
      name,
      ns,
    )!;
    expect(kept.spec.lifecycle).toBe("Draft");
    expect(kept.metadata.ownerReferences?.some(o => o.kind === "PackageVariant")).toBe(false);
  });
});

describe("following the latest upstream revision", () => {
  it("proposes an upgrade when a new upstream revision is published, with nobody editing the PackageVariant", async () => {
    apply(
      pvYaml(
        "tracker",
        `  upstream: {repo: blueprints, package: base, revision: latest}
  downstream: {repo: deployments, package: tracker}
`,
      ),
    );
    const first = await oneDraft("tracker");
    await rendered(ns, first.metadata.name);
    expect(
      getJson<PR>("packagerevision", first.metadata.name, ns)?.status?.upstreamLock?.git?.ref,
    ).toBe("base/v2");
    await publish(ns, first.metadata.name);
    await publishCopy(
      ns,
      getJson<PR>("packagerevision", "blueprints.base.v2", ns)!,
      "v3",
      base("3"),
    );
    const upgrade = await oneDraft("tracker");
    await eventually(
      "tracked v3",
      () =>
        getJson<PR>("packagerevision", upgrade.metadata.name, ns)?.status?.upstreamLock?.git
          ?.ref === "base/v3"
          ? true
          : undefined,
      60_000,
    );
  });
});

it("creates exactly one draft when the controllers are killed mid-reconcile", async () => {
  apply(
    pvYaml(
      "restarted",
      `  upstream: {repo: blueprints, package: base, revision: 1}
  downstream: {repo: deployments, package: restarted}
`,
    ),
  );
  killControllers();
  const draft = await oneDraft("restarted");
  await rendered(ns, draft.metadata.name);
  await ready("restarted");
  expect(owned("restarted")).toHaveLength(1);
  const branches = execFileSync("git", ["ls-remote", deploymentsUrl], { encoding: "utf8" })
    .split("\n")
    .filter(l => l.includes("restarted"));
  expect(branches).toHaveLength(1);
});
