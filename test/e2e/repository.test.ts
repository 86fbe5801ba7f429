import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishPackages } from "../../hack/demo/repositories";
import { openContentStore } from "../../lib/git";
import {
  applyBasicAuthSecret,
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
import { condition, createRevision, rendered, type PR as PR2 } from "../support/package-revisions";
import {
  startBodyServer,
  startTrickleServer,
  type HostileServer,
} from "../support/hostile-servers";
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
    applyBasicAuthSecret(ns, "git-creds", { username: server.credentials?.username, password });
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

describe("hostile git remotes", () => {
  // Local listeners that misbehave like hostile remotes; each stops by itself (bounded loops).
  const MARKER = "MARKER-metadata-token-51c0de";
  const servers: HostileServer[] = [];
  const start = async <T extends HostileServer>(server: Promise<T>) => {
    const s = await server;
    servers.push(s);
    return s;
  };
  afterAll(() => Promise.all(servers.splice(0).map(s => s.close())));

  const notReady = (repo: string) => () =>
    ready(repo)?.status === "False" ? ready(repo) : undefined;
  const everything = () =>
    JSON.stringify([
      listJson("repositories", ns),
      listJson("packagerevisions", ns),
      listJson("events", ns),
    ]);
  const gitClone = (repo: string) => ({
    cloneFrom: { git: { repo, ref: "main", directory: "/" } },
  });

  it("ends a Repository on a server that never finishes answering with Ready=False reason Timeout, and others still sync", async () => {
    // One byte a second for up to 10 minutes: only the total timeout ends it (30 s in the tests).
    const trickle = await start(startTrickleServer({ intervalMs: 1_000, maxBytes: 600 }));
    registerRepository(ns, "hung", `${trickle.url}/hung.git`);
    registerRepository(ns, "hung-too", `${trickle.url}/hung-too.git`);
    const url = await createGitRepository("alongside", [
      { name: "pkg", revisions: [revision("v1", files("pkg"))] },
    ]);
    registerRepository(ns, "alongside", url);
    await eventually("alongside Ready=True", () =>
      ready("alongside")?.status === "True" ? true : undefined,
    );
    // A clone source on the same server: the PackageRevision says Timeout too
    // (its timeout runs alongside the Repository's).
    const pr = createRevision(
      ns,
      "alongside",
      "from-hung",
      "v1",
      gitClone(`${trickle.url}/src.git`),
    );
    const timedOut = await eventually("hung Ready=False", notReady("hung"), 120_000);
    expect(timedOut.reason).toBe("Timeout");
    expect(timedOut.message).toContain(`git server ${trickle.url}/hung.git timed out`);
    const failed = await eventually(
      "clone source Ready=False",
      () => {
        const c = condition(getJson<PR2>("packagerevision", pr, ns), "Ready");
        return c?.status === "False" ? c : undefined;
      },
      120_000,
    );
    expect(failed.reason).toBe("Timeout");
  });

  it("never shows what a non-git server answered, in status or events", async () => {
    const body = `${MARKER}\n{"AccessKeyId":"${MARKER}"}\n`;
    const ok = await start(startBodyServer(200, body));
    const missing = await start(startBodyServer(404, body));
    registerRepository(ns, "not-git", `${ok.url}/repo.git`);
    registerRepository(ns, "not-found", `${missing.url}/repo.git`);
    for (const repo of ["not-git", "not-found"])
      await eventually(`${repo} Ready=False`, notReady(repo), 60_000);
    const pr = createRevision(
      ns,
      "alongside",
      "from-not-git",
      "v1",
      gitClone(`${missing.url}/x.git`),
    );
    await eventually("clone source Ready=False", () =>
      condition(getJson<PR2>("packagerevision", pr, ns), "Ready")?.status === "False"
        ? true
        : undefined,
    );
    expect(ok.seen.length + missing.seen.length).toBeGreaterThan(0);
    expect(everything()).not.toContain(MARKER);
  });

  it("refuses credentials in a git URL when the Repository or PackageRevision is applied", () => {
    const result = kubectl(
      ["apply", "-n", ns, "-f", "-"],
      JSON.stringify({
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "Repository",
        metadata: { name: "with-userinfo" },
        spec: { git: { repo: "https://user:hunter2-pass@git.example.com/org/repo.git" } },
      }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      "spec.git.repo: credentials in the URL are not allowed; use secretRef",
    );
    expect(result.stderr).not.toContain("hunter2-pass");
    expect(getJson("repository", "with-userinfo", ns)).toBeUndefined();

    const metadata = kubectl(
      ["apply", "-n", ns, "-f", "-"],
      JSON.stringify({
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "Repository",
        metadata: { name: "metadata" },
        spec: { git: { repo: "http://169.254.169.254/latest/meta-data" } },
      }),
    );
    expect(metadata.stderr).toContain(
      'spec.git.repo: host "169.254.169.254" is a link-local or cloud metadata address, which is never allowed',
    );

    const clone = kubectl(
      ["apply", "-n", ns, "-f", "-"],
      JSON.stringify({
        apiVersion: "porch.kpt.dev/v1alpha2",
        kind: "PackageRevision",
        metadata: { name: "alongside.userinfo.v1" },
        spec: {
          packageName: "userinfo",
          repository: "alongside",
          workspaceName: "v1",
          lifecycle: "Draft",
          source: gitClone("https://user:hunter2-pass@git.example.com/org/repo.git"),
        },
      }),
    );
    expect(clone.stderr).toContain(
      "spec.source.cloneFrom.git.repo: credentials in the URL are not allowed; use secretRef",
    );
    expect(getJson("packagerevision", "alongside.userinfo.v1", ns)).toBeUndefined();
  });
});
