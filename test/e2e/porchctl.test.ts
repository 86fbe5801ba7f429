import { createGitRepository, kptfile, publishTo, revision } from "../support/git";
import { createNamespace, deleteNamespace, getJson, kubectl, kubectlOk } from "../support/kubectl";
import { condition, lifecycleReached, PR, rendered } from "../support/package-revisions";
import { syncRepository } from "../support/fixtures";
import { eventually } from "../support/wait";

// What `porchctl --api-version v1alpha2` sends, request by request, as read from Porch's sources
// (nephio-project/porch, pkg/cli/commands/...). porchctl cannot be built here (its kpt module is
// not served), so each command's requests are made with kubectl; every object it writes goes
// through Porch's Go types first, which turn an absent non-pointer struct into `{name: ""}`.
// docs/porchctl.md lists the commands and what they need.

const PR_V2 = "packagerevisions.v1alpha2.porch.kpt.dev";
const PRR_V1 = "packagerevisionresources.v1alpha1.porch.kpt.dev";
const REPO = "repositories.v1alpha1.config.porch.kpt.dev";

type Obj = Record<string, any>;

/**
 * An object as a Go client writes it back: `secretRef` (api/porchconfig/v1alpha1
 * GitRepository, api/porch/v1alpha2 GitPackage) is a struct, not a pointer, so `omitempty`
 * never drops it.
 */
function throughGoTypes(obj: Obj): Obj {
  const copy = structuredClone(obj);
  const git = copy.kind === "Repository" ? copy.spec?.git : copy.spec?.source?.cloneFrom?.git;
  if (git) git.secretRef ??= { name: "" };
  return copy;
}

const get = (resource: string, name: string): Obj =>
  JSON.parse(kubectlOk(["get", resource, name, "-n", ns, "-o", "json"]));
const create = (obj: Obj) => kubectl(["create", "-n", ns, "-f", "-"], JSON.stringify(obj));
const replace = (obj: Obj) =>
  kubectl(["replace", "-n", ns, "-o", "json", "-f", "-"], JSON.stringify(throughGoTypes(obj)));
const listRevisions = (): PR[] =>
  JSON.parse(kubectlOk(["get", PR_V2, "-n", ns, "-o", "json"])).items as PR[];

/** rpkg init / clone / copy / upgrade: a Draft named `<repo>.<package>.<workspace>` (util.ComposePkgRevObjName). */
function draft(repository: string, packageName: string, workspaceName: string, source: Obj) {
  return {
    apiVersion: "porch.kpt.dev/v1alpha2",
    kind: "PackageRevision",
    metadata: { namespace: ns, name: `${repository}.${packageName}.${workspaceName}` },
    spec: { packageName, workspaceName, repository, lifecycle: "Draft", source },
  };
}

/**
 * propose, approve (cliutils.UpdatePackageRevisionApprovalV1Alpha2), reject, propose-delete:
 * a Get, then an Update of the whole object with spec.lifecycle changed, again on a conflict
 * (retry.RetryOnConflict with retry.DefaultRetry: at most 5 tries).
 */
function moveTo(name: string, lifecycle: string) {
  let result: ReturnType<typeof kubectl> | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const pr = get(PR_V2, name);
    pr.spec.lifecycle = lifecycle;
    result = replace(pr);
    if (!result.stderr.includes("(Conflict)")) break;
  }
  return result!;
}

let ns: string;
let blueprintsUrl: string;
const cm = (n: number) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\ndata:\n  revision: "${n}"\n`;

beforeAll(async () => {
  ns = createNamespace("e2e-porchctl");
  blueprintsUrl = await createGitRepository("blueprints", [
    { name: "base", revisions: [revision("v1", { Kptfile: kptfile("base"), "cm.yaml": cm(1) })] },
  ]);
});
afterAll(() => deleteNamespace(ns));

describe("porchctl --api-version v1alpha2", () => {
  it('repo reg of public repositories (repo/reg/command.go runE: secretRef {name: ""})', async () => {
    const deploymentsUrl = await createGitRepository("deployments");
    for (const [name, repo, deployment] of [
      ["blueprints", blueprintsUrl, false],
      ["deployments", deploymentsUrl, true],
    ] as const) {
      const result = create({
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "Repository",
        metadata: { name, namespace: ns },
        spec: {
          type: "git",
          ...(deployment && { deployment }),
          git: { repo, branch: "main", directory: "/", secretRef: { name: "" } },
        },
      });
      expect(result.stderr).toBe("");
    }
    await eventually(
      "blueprints.base.v1 mirrored",
      () =>
        getJson<PR>(PR_V2, "blueprints.base.v1", ns)?.status?.revision === 1 ? true : undefined,
      60_000,
    );
  });

  it("repo get (repo/get/command.go: a server-side table of repositories.config.porch.kpt.dev)", () => {
    const table = kubectlOk(["get", "repositories.config.porch.kpt.dev", "-n", ns]);
    expect(table).toMatch(/blueprints/);
    expect(table).toMatch(/deployments/);
  });

  it("repo sync (repo/sync/command.go runE: Get, spec.sync.runOnceAt, Update)", () => {
    const repo = get(REPO, "blueprints");
    repo.spec.sync = { ...repo.spec.sync, runOnceAt: new Date(Date.now() + 60_000).toISOString() };
    const result = replace(repo);
    expect(result.stderr).toBe("");
  });

  it("rpkg init (init/v1alpha2.go: List for duplicates, Create with source.init)", async () => {
    expect(listRevisions().some(pr => pr.spec.packageName === "web")).toBe(false);
    const result = create(
      draft("blueprints", "web", "v1", { init: { description: "web", keywords: ["a"] } }),
    );
    expect(result.stderr).toBe("");
    await rendered(ns, "blueprints.web.v1");
  });

  it("rpkg clone of a revision and of a git URL (clone/v1alpha2.go preRunE, runE)", async () => {
    expect(
      create(
        draft("deployments", "site-a", "v1", {
          cloneFrom: { upstreamRef: { name: "blueprints.base.v1" } },
        }),
      ).stderr,
    ).toBe("");
    const git = { repo: blueprintsUrl, ref: "main", directory: "base" };
    const porchctlClone = draft("deployments", "site-git", "v1", {
      cloneFrom: { type: "git", git: { ...git, secretRef: { name: "" } } },
    });
    const dryRun = ["create", "--dry-run=server", "-n", ns, "-f", "-"];
    expect(kubectl(dryRun, JSON.stringify(porchctlClone)).stderr).toBe("");
    // Made as a kubectl user makes it, without a secretRef: porchctl's updates below add one.
    expect(
      create(draft("deployments", "site-git", "v1", { cloneFrom: { type: "git", git } })).stderr,
    ).toBe("");
    await rendered(ns, "deployments.site-a.v1");
    const cloned = await rendered(ns, "deployments.site-git.v1");
    expect(condition(cloned, "Ready")?.status).toBe("True");
  });

  it("rpkg get: table with field selectors (get/v1alpha2.go runV1Alpha2)", () => {
    const byPackage = kubectlOk([
      "get",
      PR_V2,
      "-n",
      ns,
      "--field-selector",
      "spec.packageName=site-a",
    ]);
    expect(byPackage).toContain("deployments.site-a.v1");
    expect(byPackage).not.toContain("site-git");
    const byRevision = kubectlOk(["get", PR_V2, "-n", ns, "--field-selector", "status.revision=1"]);
    expect(byRevision).toContain("blueprints.base.v1");
    expect(byRevision).not.toContain("site-a");
    // Its filter on the client finds the workspace in the column Porch's CRD names so.
    expect(byPackage.split("\n")[0]).toMatch(/\bWORKSPACENAME\b/);
    const byWorkspace = kubectlOk([
      "get",
      PR_V2,
      "-n",
      ns,
      "--field-selector",
      "spec.workspaceName=v1",
    ]);
    expect(byWorkspace).toContain("blueprints.web.v1");
  });

  it("rpkg get --show-kptfile and pull (get/command.go showKptfileContent, pull/command.go runE: v1alpha1 Get)", () => {
    const prr = get(PRR_V1, "deployments.site-a.v1");
    expect(prr.apiVersion).toBe("porch.kpt.dev/v1alpha1");
    expect(prr.spec.resources.Kptfile).toContain("kind: Kptfile");
  });

  it("rpkg push (push/command.go runE: v1alpha1 Update of spec.resources only)", async () => {
    const pulled = get(PRR_V1, "deployments.site-a.v1");
    const local = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n";
    const files = { ...pulled.spec.resources, "local.yaml": local };
    const result = replace({
      apiVersion: "porch.kpt.dev/v1alpha1",
      kind: "PackageRevisionResources",
      metadata: {
        name: pulled.metadata.name,
        namespace: ns,
        resourceVersion: pulled.metadata.resourceVersion,
      },
      spec: { resources: files },
    });
    expect(result.stderr).toBe("");
    // The response carries the last render's status; this one renders after the update.
    expect(JSON.parse(result.stdout).status?.renderStatus?.error ?? "").toBe("");
    const pr = await rendered(ns, "deployments.site-a.v1");
    expect(condition(pr, "Rendered")?.status).toBe("True");
    // The operator's next write of the files restores what the update dropped.
    const after = get("packagerevisionresources", "deployments.site-a.v1");
    expect(after.spec.resources["local.yaml"]).toContain("name: local");
    expect(after.spec.packageName).toBe("site-a");
    expect(after.metadata.ownerReferences?.[0]?.name).toBe("deployments.site-a.v1");
  });

  it("rpkg propose and reject of a git-URL clone (Update through the Go types)", async () => {
    expect(moveTo("deployments.site-git.v1", "Proposed").stderr).toBe("");
    expect(moveTo("deployments.site-git.v1", "Draft").stderr).toBe("");
    expect(get(PR_V2, "deployments.site-git.v1").spec.source.cloneFrom.git.repo).toBe(
      blueprintsUrl,
    );
  });

  it("rpkg propose, approve, propose-delete, reject of a deletion (Updates of spec.lifecycle)", async () => {
    const name = "deployments.site-a.v1";
    expect(moveTo(name, "Proposed").stderr).toBe("");
    await lifecycleReached(ns, name, "Proposed");
    expect(moveTo(name, "Published").stderr).toBe("");
    await lifecycleReached(ns, name, "Published");
    expect(moveTo(name, "DeletionProposed").stderr).toBe("");
    expect(moveTo(name, "Published").stderr).toBe("");
    // A push through v1alpha1 meets the same webhook (matchPolicy Equivalent).
    const pulled = get(PRR_V1, name);
    const push = replace({
      ...pulled,
      spec: { resources: { ...pulled.spec.resources, "late.yaml": "a: 1\n" } },
    });
    expect(push.stderr).toContain("the files of a Published revision are read-only");
  });

  it("rpkg copy (copy/v1alpha2.go runE: Get the source, Create with source.copyFrom)", async () => {
    const source = get(PR_V2, "deployments.site-a.v1");
    const result = create(
      draft(source.spec.repository, source.spec.packageName, "v2", {
        copyFrom: { name: source.metadata.name },
      }),
    );
    expect(result.stderr).toBe("");
    await rendered(ns, "deployments.site-a.v2");
  });

  it("rpkg upgrade (upgrade/v1alpha2.go preRunE List, doUpgrade Create with source.upgrade)", async () => {
    await publishTo(blueprintsUrl, [
      { name: "base", revisions: [revision("v2", { Kptfile: kptfile("base"), "cm.yaml": cm(2) })] },
    ]);
    syncRepository(ns, "blueprints");
    await eventually(
      "blueprints.base.v2 mirrored",
      () =>
        getJson<PR>(PR_V2, "blueprints.base.v2", ns)?.status?.revision === 2 ? true : undefined,
      60_000,
    );
    // --discover upstream: the same List, compared on the client.
    const prs = listRevisions();
    const current = prs.find(pr => pr.metadata.name === "deployments.site-a.v1")!;
    const oldUpstream = (current.spec.source as Obj).cloneFrom.upstreamRef.name as string;
    const newUpstream = prs
      .filter(pr => pr.spec.packageName === "base" && pr.spec.lifecycle === "Published")
      .sort((a, b) => (b.status?.revision ?? 0) - (a.status?.revision ?? 0))[0].metadata.name;
    expect(newUpstream).toBe("blueprints.base.v2");
    const result = create(
      draft("deployments", "site-a", "v3", {
        upgrade: {
          oldUpstream: { name: oldUpstream },
          newUpstream: { name: newUpstream },
          currentPackage: { name: current.metadata.name },
        },
      }),
    );
    expect(result.stderr).toBe("");
    await rendered(ns, "deployments.site-a.v3");
    const prr = get(PRR_V1, "deployments.site-a.v3");
    expect(prr.spec.resources["cm.yaml"]).toContain('revision: "2"');
    expect(prr.spec.resources["local.yaml"]).toContain("name: local");
  });

  it("rpkg del and repo unreg (del/v1alpha2.go, repo/unreg/command.go: Delete)", () => {
    expect(kubectl(["delete", PR_V2, "blueprints.web.v1", "-n", ns]).code).toBe(0);
    get(REPO, "deployments");
    expect(kubectl(["delete", REPO, "deployments", "-n", ns, "--wait=false"]).code).toBe(0);
  });
});
