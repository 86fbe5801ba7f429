import { spawnSync } from "node:child_process";
import { createGitRepository, kptfile, registerRepository, revision } from "../support/git";
import {
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  kubectlOk,
  listJson,
  mergePatch,
} from "../support/kubectl";
import { condition, PR } from "../support/package-revisions";
import { eventually } from "../support/wait";

// What a tenant may read (readable kinds, namespaced) and what deleting may destroy in git,
// against the real API server, webhook and git server. Global setup lists v1/Namespace as
// readable: a cluster-scoped kind is refused all the same.
const DENIED = 'admission webhook "pepr-porch-pepr.pepr.dev" denied the request';
const ALLOWED =
  "allowed kinds: v1/ConfigMap, config.porch.kpt.dev/v1alpha1/Repository, e2e.porch.dev/v1/SiteConfig, e2e.porch.dev/v1/Site";

type Revision = PR & {
  metadata: { annotations?: Record<string, string>; finalizers?: string[] };
};

let ns: string;
beforeAll(() => {
  ns = createNamespace("e2e-scope");
});
afterAll(() => deleteNamespace(ns));

const apply = (manifest: object, namespace = ns) =>
  kubectl(["apply", "-n", namespace, "-f", "-"], JSON.stringify(manifest));

const files = (name: string) => ({
  Kptfile: kptfile(name),
  "cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: "1"\n`,
});

/** The refs of a git repository on the test server, as `git ls-remote` lists them. */
function lsRemote(url: string): string[] {
  const result = spawnSync("git", ["ls-remote", url], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ls-remote ${url}: ${result.stderr}`);
  return result.stdout
    .split("\n")
    .filter(Boolean)
    .map(line => line.split("\t")[1]);
}

const APP_REFS = ["refs/tags/app/v1", "refs/heads/drafts/app/wip"];

/** A git repository with app v1 (published) and app wip (draft), registered as `name`. */
async function registeredApp(namespace: string, name: string): Promise<string> {
  const url = await createGitRepository(name, [
    {
      name: "app",
      revisions: [revision("v1", files("app")), revision("wip", files("app"), "Draft")],
    },
  ]);
  registerRepository(namespace, name, url);
  for (const ws of ["v1", "wip"]) {
    // The finalizer comes in the same patch as the recorded Repository UID.
    await eventually(`${name}.app.${ws} mirrored with its finalizer`, () => {
      const pr = getJson<Revision>("packagerevision", `${name}.app.${ws}`, namespace);
      return pr?.metadata.finalizers?.length ? pr : undefined;
    });
  }
  expect(lsRemote(url)).toEqual(expect.arrayContaining(APP_REFS));
  return url;
}

describe("readable kinds", () => {
  it("denies an injector naming a cluster-scoped kind, even a listed one", () => {
    const result = apply({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "PackageVariant",
      metadata: { name: "reads-namespaces" },
      spec: {
        upstream: { repo: "blueprints", package: "app", workspaceName: "v1" },
        downstream: { repo: "deployments", package: "app" },
        injectors: [{ group: "", version: "v1", kind: "Namespace", name: "kube-system" }],
      },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(DENIED);
    expect(result.stderr).toContain(
      "spec.injectors[0]: v1/Namespace is cluster-scoped; only namespaced kinds are read, in the object's own namespace",
    );
  });

  it("denies an objectSelector on a kind that is not listed, naming the allowed kinds", () => {
    const result = apply({
      apiVersion: "config.porch.kpt.dev/v1alpha2",
      kind: "PackageVariantSet",
      metadata: { name: "selects-secrets" },
      spec: {
        upstream: { repo: "blueprints", package: "app", revision: "latest" },
        targets: [
          {
            objectSelector: { apiVersion: "v1", kind: "Secret" },
            template: { downstream: { repo: "deployments" } },
          },
        ],
      },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(DENIED);
    expect(result.stderr).toContain(
      `spec.targets[0].objectSelector: v1/Secret is not a readable kind; ${ALLOWED}`,
    );
  });
});

describe("deletion never destroys content it does not own", () => {
  it("a new PackageRevision for a taken package and workspace is denied, naming the existing one", async () => {
    await registeredApp(ns, "taken");
    const result = apply({
      apiVersion: "porch.kpt.dev/v1alpha2",
      kind: "PackageRevision",
      metadata: { name: "my-app" },
      spec: {
        packageName: "app",
        repository: "taken",
        workspaceName: "wip",
        lifecycle: "Draft",
        source: { init: { description: "mine" } },
      },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(DENIED);
    expect(result.stderr).toContain(
      'spec.workspaceName: package "app" of repository "taken" already has workspace "wip": PackageRevision "taken.app.wip"',
    );
  });

  it("a Repository deleted and re-created under the same name: deleting its old revisions leaves git alone", async () => {
    const url = await registeredApp(ns, "again");
    // Orphaning keeps the revisions (the garbage collector drops their ownerReference)...
    kubectlOk(["delete", "repository", "again", "-n", ns, "--cascade=orphan", "--wait=true"]);
    registerRepository(ns, "again", url); // ...and the name comes back, same URL, another UID
    // Proposing the deletion moves nothing in git: the revision is not the new Repository's.
    mergePatch("packagerevision", "again.app.v1", ns, { spec: { lifecycle: "DeletionProposed" } });
    const v1 = await eventually("the old revision refused under the new Repository", () => {
      const pr = getJson<Revision>("packagerevision", "again.app.v1", ns);
      return condition(pr, "Ready")?.reason === "RepositoryReplaced" ? pr : undefined;
    });
    expect(condition(v1, "Ready")?.message).toContain('made under an earlier Repository "again"');
    kubectlOk(["delete", "packagerevision", "again.app.v1", "again.app.wip", "-n", ns]);
    expect(lsRemote(url)).toEqual(expect.arrayContaining(APP_REFS));

    // Its content is still in git, not this object's: not adopted, and the message says so.
    apply({
      apiVersion: "porch.kpt.dev/v1alpha2",
      kind: "PackageRevision",
      metadata: { name: "again.app.wip" },
      spec: {
        packageName: "app",
        repository: "again",
        workspaceName: "wip",
        lifecycle: "Draft",
        source: { init: { description: "mine" } },
      },
    });
    const refused = await eventually("the new draft refused", () => {
      const pr = getJson<Revision>("packagerevision", "again.app.wip", ns);
      return condition(pr, "Ready")?.reason === "AlreadyExists" ? pr : undefined;
    });
    expect(condition(refused, "Ready")?.message).toContain(
      'package "app" of repository "again" already has workspace "wip" in git, not made by this PackageRevision',
    );
    kubectlOk(["delete", "packagerevision", "again.app.wip", "-n", ns]);
    expect(lsRemote(url)).toEqual(expect.arrayContaining(APP_REFS));
  });

  it("a namespace deleted with its Repository and revisions leaves git untouched", async () => {
    const doomed = createNamespace("e2e-scope-doomed");
    const url = await registeredApp(doomed, "doomed");
    // Keeps the Repository while the namespace empties, so its revisions go first.
    mergePatch("repository", "doomed", doomed, {
      metadata: { finalizers: ["e2e.porch.dev/hold"] },
    });
    kubectlOk(["delete", "namespace", doomed, "--wait=false"]);
    await eventually(
      "the revisions deleted",
      () => (listJson("packagerevisions", doomed).length === 0 ? true : undefined),
      60_000,
    );
    expect(lsRemote(url)).toEqual(expect.arrayContaining(APP_REFS));
    mergePatch("repository", "doomed", doomed, { metadata: { finalizers: null } });
  });
});
