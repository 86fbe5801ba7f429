import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishPackages } from "../../hack/demo/repositories";
import { openContentStore } from "../../lib/git";
import {
  createGitRepository,
  gitServer,
  kptfile,
  registerRepository,
  revision,
} from "../support/git";
import {
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  kubectlOk,
  listJson,
  mergePatch,
} from "../support/kubectl";
import { syncRepository } from "../support/fixtures";
import { createRevision, rendered } from "../support/package-revisions";
import { eventually } from "../support/wait";

// Repository sync against the real control plane and a real git server over smart HTTP.
interface PR {
  metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { kind: string }[] };
  spec: { packageName: string; workspaceName: string; lifecycle: string };
  status?: { revision?: number };
}
interface Repo {
  status?: {
    conditions?: { type: string; status: string; reason: string; message: string }[];
    packageCount?: number;
    gitCommitHash?: string;
    lastFullSyncTime?: string;
  };
}

let ns: string;
const files = (name: string, data = "1") => ({
  Kptfile: kptfile(name),
  "cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: "${data}"\n`,
});
const revisionsOf = (repo: string) =>
  listJson<PR>("packagerevisions", ns, `porch.kpt.dev/repository=${repo}`);
const ready = (repo: string) =>
  getJson<Repo>("repository", repo, ns)?.status?.conditions?.find(c => c.type === "Ready");
const summary = (repo: string) =>
  revisionsOf(repo)
    .map(
      pr =>
        `${pr.spec.packageName}/${pr.spec.workspaceName} ${pr.spec.lifecycle} r${pr.status?.revision} latest=${pr.metadata.labels?.["porch.kpt.dev/latest-revision"]}`,
    )
    .sort();
const syncNow = (repo: string) => syncRepository(ns, repo);

beforeAll(() => {
  ns = createNamespace("e2e-repo");
});
afterAll(() => deleteNamespace(ns));

it("mirrors packages and revisions with lifecycle, revision and the latest-revision label", async () => {
  const url = await createGitRepository("catalog", [
    {
      name: "base",
      revisions: [revision("v1", files("base")), revision("v2", files("base", "2"))],
    },
    {
      name: "apps/web",
      revisions: [revision("v1", files("web")), revision("wip", files("web", "x"), "Draft")],
    },
  ]);
  registerRepository(ns, "catalog", url);
  const expected = [
    "apps/web/main Published r-1 latest=false",
    "apps/web/v1 Published r1 latest=true",
    "apps/web/wip Draft r0 latest=false",
    "base/main Published r-1 latest=false",
    "base/v1 Published r1 latest=false",
    "base/v2 Published r2 latest=true",
  ];
  await eventually("mirrored revisions", () =>
    JSON.stringify(summary("catalog")) === JSON.stringify(expected) ? true : undefined,
  );
  const pr = getJson<PR>("packagerevision", "catalog.apps.web.v1", ns)!;
  expect(pr.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "Repository" })]);
  const prr = getJson<{ spec: { resources: Record<string, string> } }>(
    "packagerevisionresources",
    "catalog.apps.web.v1",
    ns,
  )!;
  expect(prr.spec.resources["cm.yaml"]).toContain("name: web");
  const repo = getJson<Repo>("repository", "catalog", ns)!;
  expect(repo.status?.packageCount).toBe(2);
  expect(repo.status?.gitCommitHash).toMatch(/^[0-9a-f]{40}$/);
  expect(ready("catalog")).toMatchObject({ status: "True", reason: "Ready" });
});

it("picks up a revision published from outside at the next sync", async () => {
  const url = getJson<{ spec: { git: { repo: string } } }>("repository", "catalog", ns)!.spec.git
    .repo;
  const outside = openContentStore(
    { url },
    { cacheRoot: mkdtempSync(join(tmpdir(), "porch-outside-")) },
  );
  await publishPackages(outside, [
    { name: "base", revisions: [revision("v3", files("base", "3"))] },
  ]);
  outside.close();
  syncNow("catalog");
  await eventually("base v3", () => getJson<PR>("packagerevision", "catalog.base.v3", ns));
  await eventually("latest moved to v3", () =>
    getJson<PR>("packagerevision", "catalog.base.v3", ns)?.metadata.labels?.[
      "porch.kpt.dev/latest-revision"
    ] === "true" &&
    getJson<PR>("packagerevision", "catalog.base.v2", ns)?.metadata.labels?.[
      "porch.kpt.dev/latest-revision"
    ] === "false"
      ? true
      : undefined,
  );
});

it("leaves a revision created through the API to its own controller at a sync", async () => {
  const name = createRevision(ns, "catalog", "fresh", "ws", {
    init: { description: "by kubectl" },
  });
  await rendered(ns, name);
  const prrVersion = () =>
    getJson<{ metadata: { resourceVersion: string } }>("packagerevisionresources", name, ns)
      ?.metadata.resourceVersion;
  const before = prrVersion();
  const lastSync = () => getJson<Repo>("repository", "catalog", ns)?.status?.lastFullSyncTime;
  const previous = lastSync();
  syncNow("catalog");
  await eventually("a sync", () => (lastSync() !== previous ? true : undefined));
  // Not mirrored again from git over its own files (it carries no repository label).
  const managers = (
    JSON.parse(
      kubectlOk(["get", "packagerevision", name, "-n", ns, "-o", "json", "--show-managed-fields"]),
    ) as { metadata: { managedFields?: { manager: string }[] } }
  ).metadata.managedFields?.map(f => f.manager);
  expect(managers).toContain("packagerev-controller"); // managedFields are shown
  expect(managers).not.toContain("repository-controller");
  expect(prrVersion()).toBe(before);
});

it("uses basic-auth credentials, and with wrong ones reports Ready=False and deletes nothing", async () => {
  const server = gitServer(true);
  const url = await createGitRepository(
    "private",
    [{ name: "secret-pkg", revisions: [revision("v1", files("s"))] }],
    true,
  );
  const secret = (password: string) =>
    kubectlOk(
      ["apply", "-n", ns, "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "git-creds" },
        type: "kubernetes.io/basic-auth",
        stringData: { username: server.credentials?.username, password },
      }),
    );
  secret(server.credentials?.password ?? "");
  registerRepository(ns, "private", url, { secretRef: "git-creds" });
  await eventually("private revisions", () =>
    getJson<PR>("packagerevision", "private.secret-pkg.v1", ns),
  );

  secret("not-the-password");
  syncNow("private");
  const failed = await eventually("Ready=False", () =>
    ready("private")?.status === "False" ? ready("private") : undefined,
  );
  expect(failed.reason).toBe("Error");
  expect(failed.message).toMatch(/auth|credential|401/i);
  expect(failed.message).not.toContain("not-the-password");
  expect(getJson<PR>("packagerevision", "private.secret-pkg.v1", ns)).toBeDefined();
});

it("reports a missing branch, and creates it when asked to", async () => {
  const url = await createGitRepository("empty");
  kubectlOk(
    ["apply", "-n", ns, "-f", "-"],
    JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "Repository",
      metadata: { name: "nobranch" },
      spec: { git: { repo: url, branch: "release" } },
    }),
  );
  const missing = await eventually("Ready=False", () =>
    ready("nobranch")?.status === "False" ? ready("nobranch") : undefined,
  );
  expect(missing.message).toContain('branch "release" doesn\'t exist');
  mergePatch("repository", "nobranch", ns, { spec: { git: { createBranch: true } } });
  await eventually("Ready=True", () => (ready("nobranch")?.status === "True" ? true : undefined));
});

it("refuses a Repository of a storage type it does not serve when it is applied", () => {
  const result = kubectl(
    ["apply", "-n", ns, "-f", "-"],
    JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "Repository",
      metadata: { name: "registry" },
      spec: { type: "oci" },
    }),
  );
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('spec.type: Unsupported value: "oci"');
  expect(getJson("repository", "registry", ns)).toBeUndefined();
});

it("cascades the deletion of a Repository to its PackageRevisions", async () => {
  expect(revisionsOf("catalog").length).toBeGreaterThan(0);
  kubectlOk(["delete", "repository", "catalog", "-n", ns]);
  await eventually(
    "revisions gone",
    () => (revisionsOf("catalog").length === 0 ? true : undefined),
    90_000,
  );
});

it("reports a package whose Kptfile does not parse on that revision, and syncs the rest", async () => {
  const url = await createGitRepository("mixed", [
    { name: "good", revisions: [revision("v1", files("good"))] },
    {
      name: "broken",
      revisions: [revision("v1", { Kptfile: "apiVersion: kpt.dev/v1\nkind: [not, a, kptfile\n" })],
    },
  ]);
  registerRepository(ns, "mixed", url);
  type Conditions = {
    status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
  };
  const synced = await eventually("Synced condition", () =>
    getJson<Conditions>("packagerevision", "mixed.broken.v1", ns)?.status?.conditions?.find(
      c => c.type === "Synced",
    ),
  );
  expect(synced).toMatchObject({ status: "False", reason: "InvalidKptfile" });
  expect(synced.message).toContain("Kptfile does not parse");
  expect(getJson<PR>("packagerevision", "mixed.good.v1", ns)).toBeDefined();
  expect(ready("mixed")).toMatchObject({ status: "True" });
});
