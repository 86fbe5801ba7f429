import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { GitContentStore, type GitClientKind, type PackageRevisionInfo } from "../../../lib/git";
import { transitionProblem } from "../../../lib/package-revision";
import {
  CLIENTS,
  filesAt,
  git,
  kptfile,
  lsRemote,
  pkgFiles,
  startFixture,
  workClone,
  type Fixture,
} from "./helpers";

jest.setTimeout(60_000);

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

async function newStore(client: GitClientKind, directory = "") {
  const url = await fx.repo();
  const store = new GitContentStore(
    { url, createBranch: true, directory },
    { cacheRoot: await fx.cacheRoot(), client },
  );
  return { url, store };
}

async function publishNew(
  store: GitContentStore,
  packageName: string,
  workspaceName: string,
  files = pkgFiles(packageName),
) {
  const draft = await store.createNewDraft({ packageName, workspaceName });
  await draft.updateResources(files, "init");
  await draft.closeDraft();
  await store.updateLifecycle({ packageName, workspaceName }, "Proposed");
  return store.updateLifecycle({ packageName, workspaceName }, "Published");
}

const summary = (r: PackageRevisionInfo) =>
  `${r.packageName}/${r.workspaceName}:${r.lifecycle}:${r.revision}`;

describe.each(CLIENTS)("lifecycle with the %s client", client => {
  it("moves a draft through Proposed to Published with the reference's refs", async () => {
    const { url, store } = await newStore(client);
    const key = { packageName: "app", workspaceName: "ws1" };
    const draft = await store.createNewDraft(key);
    expect(await draft.updateResources(pkgFiles("app"), "Creating new empty revision")).toBe(true);
    const closed = await draft.closeDraft();
    expect(closed).toMatchObject({
      lifecycle: "Draft",
      revision: 0,
      ref: "refs/heads/drafts/app/ws1",
    });
    expect((await lsRemote(url)).get("refs/heads/drafts/app/ws1")).toBe(closed.commit);

    const proposed = await store.updateLifecycle(key, "Proposed");
    let refs = await lsRemote(url);
    expect(proposed).toMatchObject({
      lifecycle: "Proposed",
      ref: "refs/heads/proposed/app/ws1",
      commit: closed.commit,
    });
    expect(refs.has("refs/heads/drafts/app/ws1")).toBe(false);

    expect(await store.updateLifecycle(key, "Draft")).toMatchObject({
      lifecycle: "Draft",
      ref: "refs/heads/drafts/app/ws1",
    });
    expect((await lsRemote(url)).has("refs/heads/proposed/app/ws1")).toBe(false);
    await store.updateLifecycle(key, "Proposed");

    const before = Date.now();
    const published = await store.updateLifecycle(key, "Published");
    const after = Date.now();
    refs = await lsRemote(url);
    expect(published).toMatchObject({
      lifecycle: "Published",
      revision: 1,
      workspaceName: "ws1",
      ref: "refs/tags/app/v1",
    });
    expect(published.publishedBy).toBe("porch@kpt.dev");
    // Git records whole seconds: the publication time lies within the call, however long it took.
    const publishedAt = Date.parse(published.publishedAt ?? "");
    expect(publishedAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(publishedAt).toBeLessThanOrEqual(after);
    expect(refs.get("refs/tags/app/v1")).toBe(published.commit);
    expect(refs.get("refs/heads/main")).toBe(published.commit);
    expect(refs.has("refs/heads/proposed/app/ws1")).toBe(false);

    // The approval commit is written as the reference writes it.
    const work = await workClone(fx, url);
    expect(await git(work, "log", "-1", "--format=%B", "origin/main")).toBe(
      'Approving package revision app/1\n\nkpt:{"package":"app","workspaceName":"ws1","revision":"1"}\n\n',
    );
    expect((await git(work, "log", "-1", "--format=%P", "origin/main")).trim().split(" ")).toEqual([
      expect.any(String),
      closed.commit,
    ]);
    expect(await filesAt(fx, url, "refs/tags/app/v1", "app")).toEqual(pkgFiles("app"));
    const out = join(fx.tmp, `kpt-${client}`);
    await promisify(execFile)("kpt", ["pkg", "get", `${url}/app@app/v1`, out], {
      env: { ...process.env, HOME: fx.tmp },
    });
    // kpt adds its upstream-identifier annotation; the content itself is the published one.
    expect(await readFile(join(out, "configmap.yaml"), "utf8")).toMatch(
      /name: app\n[\s\S]*value: "1"\n$/,
    );
    expect(await readFile(join(out, "Kptfile"), "utf8")).toContain("ref: app/v1");

    expect((await store.listPackageRevisions()).map(summary)).toEqual([
      "app/main:Published:-1",
      "app/ws1:Published:1",
    ]);
    expect(await store.updateLifecycle(key, "Published")).toEqual(published);
  });

  it("numbers publications per package and leaves other packages on the branch untouched", async () => {
    const { url, store } = await newStore(client);
    expect((await publishNew(store, "a", "a1", pkgFiles("a", "first"))).revision).toBe(1);
    expect((await publishNew(store, "b", "b1")).revision).toBe(1);
    expect((await publishNew(store, "a", "a2", pkgFiles("a", "second"))).revision).toBe(2);
    expect((await publishNew(store, "b", "b2")).revision).toBe(2);
    expect((await publishNew(store, "a", "a3", pkgFiles("a", "third"))).revision).toBe(3);

    const refs = await lsRemote(url);
    expect([...refs.keys()].filter(r => r.startsWith("refs/tags/")).sort()).toEqual([
      "refs/tags/a/v1",
      "refs/tags/a/v2",
      "refs/tags/a/v3",
      "refs/tags/b/v1",
      "refs/tags/b/v2",
    ]);
    expect(await filesAt(fx, url, "refs/heads/main", "b")).toEqual(pkgFiles("b"));
    expect(await filesAt(fx, url, "refs/heads/main", "a")).toEqual(pkgFiles("a", "third"));
    expect(await filesAt(fx, url, "refs/tags/a/v2", "a")).toEqual(pkgFiles("a", "second"));
    expect(
      (await store.getPackageContent({ packageName: "a", workspaceName: "a1" })).files,
    ).toEqual(pkgFiles("a", "first"));
    expect((await store.listPackageRevisions({ packageName: "b" })).map(summary)).toEqual([
      "b/main:Published:-1",
      "b/b1:Published:1",
      "b/b2:Published:2",
    ]);
  });

  it("handles nested package paths under the repository directory", async () => {
    const { url, store } = await newStore(client, "catalog");
    const nested = { ...pkgFiles("app"), "sub/Kptfile": kptfile("sub"), "sub/x.yaml": "x: 1\n" };
    const info = await publishNew(store, "team/infra/app", "v1-ws", nested);
    expect(info).toMatchObject({
      packageName: "team/infra/app",
      path: "catalog/team/infra/app",
      ref: "refs/tags/catalog/team/infra/app/v1",
    });
    expect((await lsRemote(url)).has("refs/tags/catalog/team/infra/app/v1")).toBe(true);
    // A Kptfile below a package belongs to that package; it is not a package of its own.
    expect((await store.listPackageRevisions()).map(summary)).toEqual([
      "team/infra/app/main:Published:-1",
      "team/infra/app/v1-ws:Published:1",
    ]);
    expect(
      (await store.getPackageContent({ packageName: "team/infra/app", workspaceName: "main" }))
        .files,
    ).toEqual(nested);
  });

  it("replaces the whole file set on update and reads upstreamLock from the Kptfile", async () => {
    const { store } = await newStore(client);
    const key = { packageName: "app", workspaceName: "edit" };
    const first = await store.createNewDraft(key);
    await first.updateResources(
      { ...pkgFiles("app"), "extra.yaml": "a: 1\n", "dir/deep.yaml": "b: 2\n" },
      "init",
    );
    await first.closeDraft();

    const lock =
      "upstreamLock:\n  type: git\n  git:\n    repo: https://example.com/up.git\n    directory: base\n    ref: base/v3\n    commit: abc123\n";
    const second = await store.createDraftFromExisting(key);
    expect(
      await second.updateResources({ Kptfile: kptfile("app", lock) }, "Rendering package"),
    ).toBe(true);
    expect(await second.updateResources({ Kptfile: kptfile("app", lock) }, "again")).toBe(false);
    const closed = await second.closeDraft();
    const content = await store.getPackageContent(key);
    expect(content.files).toEqual({ Kptfile: kptfile("app", lock) });
    expect(content.info.commit).toBe(closed.commit);
    expect(content.upstreamLock).toEqual({
      type: "git",
      git: {
        repo: "https://example.com/up.git",
        directory: "base",
        ref: "base/v3",
        commit: "abc123",
      },
    });
    await expect(second.updateResources(pkgFiles("app"), "late")).rejects.toThrow(/already closed/);
  });

  it.each([
    ["Draft", "Published"],
    ["Draft", "DeletionProposed"],
  ] as const)("refuses %s → %s with the shared transition rule", async (from, to) => {
    const { store } = await newStore(client);
    const draft = await store.createNewDraft({ packageName: "app", workspaceName: "w" });
    await draft.updateResources(pkgFiles("app"), "init");
    await draft.closeDraft();
    await expect(
      store.updateLifecycle({ packageName: "app", workspaceName: "w" }, to),
    ).rejects.toMatchObject({
      code: "InvalidTransition",
      message: `cannot change lifecycle of app/w from ${from} to ${to}: ${transitionProblem(from, to)}`,
    });
  });

  it("toggles DeletionProposed with the deletionProposed branch and rejects invalid draft input", async () => {
    const { url, store } = await newStore(client);
    const published = await publishNew(store, "app", "w");
    const key = { packageName: "app", workspaceName: "w" };
    expect(await store.updateLifecycle(key, "DeletionProposed")).toMatchObject({
      lifecycle: "DeletionProposed",
      revision: 1,
    });
    expect((await lsRemote(url)).get("refs/heads/deletionProposed/app/v1")).toBe(published.commit);
    expect(await store.updateLifecycle(key, "Published")).toMatchObject({ lifecycle: "Published" });
    expect((await lsRemote(url)).has("refs/heads/deletionProposed/app/v1")).toBe(false);
    await expect(store.updateLifecycle(key, "Draft")).rejects.toMatchObject({
      code: "InvalidTransition",
    });

    await expect(store.createNewDraft(key)).rejects.toMatchObject({ code: "AlreadyExists" });
    await expect(
      store.createNewDraft({ packageName: "app", workspaceName: "main" }),
    ).rejects.toMatchObject({ code: "InvalidArgument" });
    await expect(
      store.createNewDraft({ packageName: "../x", workspaceName: "a" }),
    ).rejects.toMatchObject({ code: "InvalidArgument" });
    await expect(store.createDraftFromExisting(key)).rejects.toMatchObject({
      code: "InvalidTransition",
    });
    const draft = await store.createNewDraft({ packageName: "app", workspaceName: "nokpt" });
    await expect(draft.updateResources({ "a.yaml": "a: 1\n" }, "x")).rejects.toThrow(
      /must contain a Kptfile/,
    );
    await expect(draft.closeDraft()).rejects.toThrow(/has no resources/);
    await expect(
      store.getPackageContent({ packageName: "app", workspaceName: "nope" }),
    ).rejects.toMatchObject({ code: "NotFound" });
  });
});
