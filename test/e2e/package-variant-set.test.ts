import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { examplesDir } from "../support/examples";
import { createRepository, publishRevision } from "../support/fixtures";
import {
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  kubectlOk,
  listJson,
  grantModuleRead,
} from "../support/kubectl";
import { eventually } from "../support/wait";

// The PackageVariantSet controller against the real API server. PackageVariants are checked as
// objects here; what the PackageVariant controller makes of them is tested in its own file.
interface PV {
  metadata: {
    name: string;
    uid: string;
    labels: Record<string, string>;
    ownerReferences?: { kind: string; controller?: boolean }[];
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  spec: {
    downstream: { repo: string; package: string };
    labels?: Record<string, string>;
    injectors?: { name: string }[];
  };
}
interface PVS {
  metadata: { uid: string; generation: number };
  status?: {
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason: string; message: string }[];
    counts?: { desired: number };
    targets?: { packageVariant: string; ready: string; message?: string }[];
  };
}

let ns: string;
const apply = (yaml: string) => kubectlOk(["apply", "-n", ns, "-f", "-"], yaml);
const variantsOf = (set: string): PV[] => {
  const uid = getJson<PVS>("packagevariantset", set, ns)?.metadata.uid;
  return uid
    ? listJson<PV>("packagevariants", ns, `config.porch.kpt.dev/packagevariantset=${uid}`)
    : [];
};
// Variants being deleted wait for the PackageVariant controller's finalizer: not part of the set.
const downstreams = (set: string) =>
  variantsOf(set)
    .filter(pv => !pv.metadata.deletionTimestamp)
    .map(pv => `${pv.spec.downstream.repo}/${pv.spec.downstream.package}`)
    .sort();
const condition = (set: string, type: string) =>
  getJson<PVS>("packagevariantset", set, ns)?.status?.conditions?.find(c => c.type === type);
const waitForDownstreams = (set: string, expected: string[]) =>
  eventually(`${set} → ${expected.join(", ")}`, () =>
    JSON.stringify(downstreams(set)) === JSON.stringify(expected) ? true : undefined,
  );

beforeAll(async () => {
  ns = createNamespace("e2e-pvs");
  const table: [string, Record<string, string>][] = [
    ["cluster-01", { region: "useast1", env: "prod", org: "hr" }],
    ["cluster-02", { region: "uswest1", env: "prod", org: "finance" }],
    ["cluster-03", { region: "useast2", env: "prod", org: "hr" }],
    ["cluster-04", { region: "uswest1", env: "prod", org: "hr" }],
  ];
  await Promise.all(table.map(([name, labels]) => createRepository(ns, name, labels)));
  await Promise.all(["platform-catalog", "example-repo"].map(name => createRepository(ns, name)));
  await publishRevision(ns, "platform-catalog", "base-ns", 1);
  await publishRevision(ns, "example-repo", "foo", 1);
});
afterAll(() => deleteNamespace(ns));

describe("a repository-list set (documented example)", () => {
  it("creates the three documented PackageVariants, owned and labelled", async () => {
    kubectlOk([
      "apply",
      "-n",
      ns,
      "-f",
      join(examplesDir, "packagevariantset/seed-namespaces.yaml"),
    ]);
    await waitForDownstreams("example", ["cluster-01/ns-1", "cluster-01/ns-2", "cluster-01/ns-3"]);
    const set = getJson<PVS>("packagevariantset", "example", ns)!;
    for (const pv of variantsOf("example")) {
      expect(pv.metadata.name).toBe(`example-cluster-01-${pv.spec.downstream.package}`);
      expect(pv.metadata.labels["config.porch.kpt.dev/packagevariantset"]).toBe(set.metadata.uid);
      expect(pv.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: "PackageVariantSet", controller: true }),
      ]);
      expect(pv.metadata.finalizers).toEqual(["config.porch.kpt.dev/packagevariants"]);
      expect(pv.spec.labels).toEqual({ "package-type": "namespace", org: "hr" });
    }
    const ready = await eventually("Ready=True", () =>
      condition("example", "Ready")?.status === "True" ? condition("example", "Ready") : undefined,
    );
    expect(ready.reason).toBe("Reconciled");
    expect(getJson<PVS>("packagevariantset", "example", ns)?.status?.counts?.desired).toBe(3);
  });

  it("updates only the spec when the template changes: names and UIDs are kept", async () => {
    const before = new Map(variantsOf("example").map(pv => [pv.metadata.name, pv.metadata.uid]));
    kubectlOk([
      "patch",
      "packagevariantset",
      "example",
      "-n",
      ns,
      "--type=json",
      "-p",
      JSON.stringify([
        { op: "replace", path: "/spec/targets/0/template/labels/org", value: "finance" },
      ]),
    ]);
    await eventually("labels updated", () =>
      variantsOf("example").every(pv => pv.spec.labels?.org === "finance") ? true : undefined,
    );
    const after = new Map(variantsOf("example").map(pv => [pv.metadata.name, pv.metadata.uid]));
    expect(after).toEqual(before);
  });

  it("does not rewrite unchanged PackageVariants", async () => {
    // Every write the set makes is counted in its PackageVariantsReconciled events (a no-op
    // update leaves no trace on the objects themselves).
    const writes = () =>
      listJson<{ reason: string; message: string; count?: number }>("events", ns, undefined)
        .filter(e => e.reason === "PackageVariantsReconciled" && e.message.includes("updated"))
        .reduce((n, e) => n + (e.count ?? 1), 0);
    const generations = () =>
      variantsOf("example")
        .map(pv => (pv.metadata as { generation?: number }).generation)
        .join();
    const before = { writes: writes(), generations: generations() };
    kubectlOk(["annotate", "packagevariantset", "example", "-n", ns, "poke=1"]);
    await new Promise(r => setTimeout(r, 2000));
    expect({ writes: writes(), generations: generations() }).toEqual(before);
  });
});

describe("a repository-selector set (documented example)", () => {
  it("produces the documented table and follows relabelled repositories", async () => {
    kubectlOk([
      "apply",
      "-n",
      ns,
      "-f",
      join(examplesDir, "packagevariantset/seed-repository-selector.yaml"),
    ]);
    await waitForDownstreams("example-selector", [
      "cluster-01/foo",
      "cluster-02/foo-a",
      "cluster-02/foo-b",
      "cluster-02/foo-c",
      "cluster-03/foo",
      "cluster-04/foo",
      "cluster-04/foo-a",
      "cluster-04/foo-b",
      "cluster-04/foo-c",
    ]);
    kubectlOk(["label", "repository", "cluster-03", "-n", ns, "env=dev", "--overwrite"]);
    await createRepository(ns, "cluster-05", { region: "uswest1" });
    await waitForDownstreams("example-selector", [
      "cluster-01/foo",
      "cluster-02/foo-a",
      "cluster-02/foo-b",
      "cluster-02/foo-c",
      "cluster-04/foo",
      "cluster-04/foo-a",
      "cluster-04/foo-b",
      "cluster-04/foo-c",
      "cluster-05/foo-a",
      "cluster-05/foo-b",
      "cluster-05/foo-c",
    ]);
    // The dropped variant goes, and its deletion policy (delete) removes its draft.
    await eventually(
      "dropped variant and its draft gone",
      () =>
        variantsOf("example-selector").some(pv => pv.spec.downstream.repo === "cluster-03") ||
        listJson("packagerevisions", ns, "porch.kpt.dev/repository=cluster-03").length > 0
          ? undefined
          : true,
      60_000,
    );
  });

  it("computes labels and injector names from each repository", async () => {
    kubectlOk([
      "apply",
      "-n",
      ns,
      "-f",
      join(examplesDir, "packagevariantset/seed-injectors.yaml"),
    ]);
    await waitForDownstreams("example-injectors", ["cluster-01/foo", "cluster-04/foo"]);
    const byRepo = Object.fromEntries(
      variantsOf("example-injectors").map(pv => [pv.spec.downstream.repo, pv.spec]),
    );
    expect(byRepo["cluster-01"].injectors).toEqual([{ name: "useast1-endpoints" }]);
    expect(byRepo["cluster-04"].injectors).toEqual([{ name: "uswest1-endpoints" }]);
    expect(byRepo["cluster-01"].labels).toEqual({ org: "hr" });
  });
});

describe("an object-selector set", () => {
  const team = (name: string, repo: string) =>
    apply(
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels: {porch.kpt.dev/cluster: edge, repo: ${repo}}\n`,
    );

  it("fans out to selected objects and promptly to new ones", async () => {
    team("paris", "cluster-01");
    apply(`apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: edge}
spec:
  upstream: {repo: platform-catalog, package: base-ns, revision: 1}
  targets:
  - objectSelector: {apiVersion: v1, kind: ConfigMap, matchLabels: {porch.kpt.dev/cluster: edge}}
    template:
      downstream: {repoExpr: "target.labels['repo']", packageExpr: "'ns-' + target.name"}
`);
    await waitForDownstreams("edge", ["cluster-01/ns-paris"]);
    team("lyon", "cluster-02");
    await waitForDownstreams("edge", ["cluster-01/ns-paris", "cluster-02/ns-lyon"]);
  });

  it("reports one bad target and still reconciles the others", async () => {
    apply(
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nice\n  labels: {porch.kpt.dev/cluster: edge}\n`,
    );
    const stalled = await eventually("Stalled=True", () =>
      condition("edge", "Stalled")?.status === "True" ? condition("edge", "Stalled") : undefined,
    );
    expect(stalled.reason).toBe("ValidationError");
    expect(stalled.message).toBe(
      "spec.targets[0].template.downstream.repoExpr: No such key: repo (column 1)",
    );
    team("nantes", "cluster-03");
    await waitForDownstreams("edge", [
      "cluster-01/ns-paris",
      "cluster-02/ns-lyon",
      "cluster-03/ns-nantes",
    ]);
    const failed = getJson<PVS>("packagevariantset", "edge", ns)?.status?.targets?.filter(
      t => t.ready === "False",
    );
    expect(failed).toEqual([
      expect.objectContaining({
        packageVariant: "",
        message: expect.stringContaining("No such key: repo"),
      }),
    ]);
  });
});

describe("safety and stalls", () => {
  it("deletes nothing while a selected kind is unavailable, and says why", async () => {
    apply(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: sites.e2e.porch.dev}
spec:
  group: e2e.porch.dev
  names: {kind: Site, plural: sites, singular: site}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
`);
    kubectlOk(["wait", "--for=condition=Established", "crd/sites.e2e.porch.dev"]);
    grantModuleRead("e2e.porch.dev", "sites");
    apply(
      `apiVersion: e2e.porch.dev/v1\nkind: Site\nmetadata: {name: cluster-04, labels: {tier: gold}}\n`,
    );
    apply(`apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: sites}
spec:
  upstream: {repo: platform-catalog, package: base-ns, revision: 1}
  targets:
  - objectSelector: {apiVersion: e2e.porch.dev/v1, kind: Site, matchLabels: {tier: gold}}
`);
    await waitForDownstreams("sites", ["cluster-04/base-ns"]);
    // Unserve the kind rather than delete the CRD: a deletion first deletes the Site objects
    // while the kind is still served, and their deletion rightly shrinks the set.
    kubectlOk([
      "patch",
      "crd",
      "sites.e2e.porch.dev",
      "--type=json",
      "-p",
      '[{"op":"replace","path":"/spec/versions/0/served","value":false}]',
    ]);
    kubectlOk(["annotate", "packagevariantset", "sites", "-n", ns, "poke=1"]);
    const stalled = await eventually("NoMatchingTargets", () =>
      condition("sites", "Stalled")?.reason === "NoMatchingTargets"
        ? condition("sites", "Stalled")
        : undefined,
    );
    expect(stalled.message).toContain('no kind "Site"');
    expect(downstreams("sites")).toEqual(["cluster-04/base-ns"]);
    expect(variantsOf("sites")[0].metadata.deletionTimestamp).toBeUndefined();
    kubectlOk(["delete", "crd", "sites.e2e.porch.dev", "--wait=false"]); // cluster-scoped
  });

  it("is UpstreamNotFound until the upstream appears, then reconciles by itself", async () => {
    apply(`apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: waiting}
spec:
  upstream: {repo: platform-catalog, package: later, revision: 1}
  targets:
  - repositories: [{name: cluster-01}]
`);
    const stalled = await eventually("UpstreamNotFound", () =>
      condition("waiting", "Stalled")?.reason === "UpstreamNotFound"
        ? condition("waiting", "Stalled")
        : undefined,
    );
    expect(stalled.message).toBe(
      "could not find upstream package revision 'later/1' in repo 'platform-catalog'",
    );
    await publishRevision(ns, "platform-catalog", "later", 1);
    await waitForDownstreams("waiting", ["cluster-01/later"]);
    await eventually("Stalled=False", () =>
      condition("waiting", "Stalled")?.status === "False" ? true : undefined,
    );
  });

  it("deletes its PackageVariants (garbage collection), whose policy deletes their drafts", async () => {
    const uid = getJson<PVS>("packagevariantset", "waiting", ns)!.metadata.uid;
    await eventually(
      "draft created",
      () =>
        listJson(
          "packagerevisions",
          ns,
          "config.porch.kpt.dev/packagevariant=waiting-cluster-01-later",
        ).length > 0
          ? true
          : undefined,
      60_000,
    );
    kubectlOk(["delete", "packagevariantset", "waiting", "-n", ns, "--wait=false"]);
    await eventually(
      "variants and drafts gone",
      () =>
        listJson("packagevariants", ns, `config.porch.kpt.dev/packagevariantset=${uid}`).length ===
          0 &&
        listJson(
          "packagerevisions",
          ns,
          "config.porch.kpt.dev/packagevariant=waiting-cluster-01-later",
        ).length === 0
          ? true
          : undefined,
      90_000,
    );
  });
});

it("uses the documented hashed name for a long identifier", async () => {
  await createRepository(ns, "very-long-repo-name");
  await publishRevision(ns, "platform-catalog", "very-long-package-name", 1);
  apply(`apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: very-long-packagevariantset-name}
spec:
  upstream: {repo: platform-catalog, package: very-long-package-name, revision: 1}
  targets:
  - repositories: [{name: very-long-repo-name}]
`);
  await eventually("hashed name", () =>
    getJson(
      "packagevariant",
      "very-long-packagevariantset-name-very-long-repo-name-v-967492f1",
      ns,
    ),
  );
  expect(kubectl(["get", "packagevariants", "-n", ns]).stdout).toContain(
    "very-long-packagevariantset-name-very-long-repo-name-v-967492f1",
  );
});

it("previews a changed set: creates, updates with a spec diff, deletes, and changes nothing", async () => {
  const original = kubectlOk(["get", "packagevariantset", "example", "-n", ns, "-o", "json"]);
  const changed = JSON.parse(original);
  changed.spec.targets[0].repositories[0].packageNames = ["ns-1", "ns-2", "ns-9"];
  changed.spec.targets[0].template.labels.org = "legal";
  const file = join(tmpdir(), `preview-${ns}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: changed.apiVersion,
      kind: changed.kind,
      metadata: { name: "example" },
      spec: changed.spec,
    }),
  );
  const before = variantsOf("example")
    .map(pv => pv.metadata.uid)
    .sort();
  const out = execFileSync(
    process.execPath,
    ["hack/run-ts.mjs", "hack/preview.ts", file, "-n", ns],
    { encoding: "utf8", env: process.env },
  );
  expect(out).toContain("create    example-cluster-01-ns-9  cluster-01/ns-9");
  expect(out).toContain("update    example-cluster-01-ns-1  cluster-01/ns-1");
  expect(out).toContain('labels.org: "finance" → "legal"');
  expect(out).toContain("delete    example-cluster-01-ns-3  cluster-01/ns-3");
  expect(out).toContain("1 to create, 2 to update, 1 to delete, 0 unchanged");
  expect(
    variantsOf("example")
      .map(pv => pv.metadata.uid)
      .sort(),
  ).toEqual(before);
});

describe("hostile CEL (a tenant's expressions run in the shared controller)", () => {
  const set = (name: string, target: string, labelExprs: string) =>
    `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: ${name}}
spec:
  upstream: {repo: platform-catalog, package: base-ns, revision: 1}
  targets:
  - ${target}
    template:
      labelExprs:
      - {key: kind, value: hostile}
${labelExprs}`;
  const denial = (yaml: string) => {
    const result = kubectl(["apply", "-n", ns, "-f", "-"], yaml);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'admission webhook "pepr-porch-pepr.pepr.dev" denied the request',
    );
    return result.stderr;
  };

  it("a catastrophic regex is matched in linear time, and another set still fans out", async () => {
    // 34 a's and a bang against (a+)+$: minutes of backtracking for JavaScript's RegExp.
    apply(
      set(
        "redos",
        "repositories: [{name: cluster-02, packageNames: [redos]}]",
        `      - {key: check, valueExpr: "'${"a".repeat(34)}!'.matches('^(a+)+$') ? 'backtracked' : 'linear'"}\n`,
      ),
    );
    apply(set("calm", "repositories: [{name: cluster-03, packageNames: [calm]}]", ""));
    await waitForDownstreams("redos", ["cluster-02/redos"]);
    await waitForDownstreams("calm", ["cluster-03/calm"]);
    expect(variantsOf("redos")[0].spec.labels).toEqual({ kind: "hostile", check: "linear" });
  });

  it("a constant pattern RE2 refuses is denied at admission, naming the field", () => {
    const stderr = denial(
      set(
        "backref",
        "repositories: [{name: cluster-02, packageNames: [backref]}]",
        `      - {key: check, valueExpr: "target.repo.matches('(a)\\\\\\\\1') ? 'x' : 'y'"}\n`,
      ),
    );
    expect(stderr).toContain(
      'spec.targets[0].template.labelExprs[1].valueExpr: invalid regular expression "(a)\\\\1": invalid escape sequence',
    );
  });

  it("an expression known to exceed the cost budget is denied at admission, naming the field", () => {
    const l40 = `[${Array.from({ length: 40 }, (_, i) => i).join(", ")}]`;
    const nested = `${l40}.map(a, ${l40}.map(b, ${l40}.map(c, ${l40}.map(d, a + b + c + d)))).size() > 0`;
    const stderr = denial(
      set(
        "costly",
        "repositories: [{name: cluster-02, packageNames: [costly]}]",
        `      - {key: check, valueExpr: "${nested} ? 'x' : 'y'"}\n`,
      ),
    );
    expect(stderr).toContain(
      "spec.targets[0].template.labelExprs[1].valueExpr: CEL expression exceeds the cost budget: its estimated cost",
    );
  });

  it("an overrun at run time fails that target with the field path; the others fan out", async () => {
    const labels = (extra: Record<string, string>) =>
      JSON.stringify({ "porch.kpt.dev/cel": "heavy", repo: "cluster-04", ...extra });
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, `v${i}`]));
    apply(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: light\n  labels: ${labels({})}\n`);
    apply(
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: crowded\n  labels: ${labels(many)}\n`,
    );
    apply(
      set(
        "heavy",
        "objectSelector: {apiVersion: v1, kind: ConfigMap, matchLabels: {porch.kpt.dev/cel: heavy}}",
        `      - {key: size, valueExpr: "target.labels.map(a, target.labels.map(b, target.labels.map(c, a + b + c))).size() > 8 ? 'many' : 'few'"}
      downstream: {repoExpr: "target.labels['repo']", packageExpr: "'heavy-' + target.name"}
`,
      ),
    );
    await waitForDownstreams("heavy", ["cluster-04/heavy-light"]);
    const stalled = await eventually("Stalled=True", () =>
      condition("heavy", "Stalled")?.status === "True" ? condition("heavy", "Stalled") : undefined,
    );
    expect(stalled.reason).toBe("ValidationError");
    expect(stalled.message).toBe(
      "spec.targets[0].template.labelExprs[1].valueExpr: CEL expression exceeds the cost budget at run time (1000000 per evaluation)",
    );
    expect(variantsOf("heavy")[0].spec.labels).toEqual({ kind: "hostile", size: "few" });
    apply(
      set("after-heavy", "repositories: [{name: cluster-01, packageNames: [after-heavy]}]", ""),
    );
    await waitForDownstreams("after-heavy", ["cluster-01/after-heavy"]);
  });
});
