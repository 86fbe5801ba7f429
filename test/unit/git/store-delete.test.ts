import { GitContentStore, type GitClientKind, type PackageRevisionKey } from "../../../lib/git";
import { CLIENTS, filesAt, lsRemote, pkgFiles, startFixture, track, type Fixture } from "./helpers";

jest.setTimeout(60_000);

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

async function newStore(client: GitClientKind) {
  const url = await fx.repo();
  return {
    url,
    store: track(
      new GitContentStore({ url, createBranch: true }, { cacheRoot: await fx.cacheRoot(), client }),
    ),
  };
}

async function draft(store: GitContentStore, key: PackageRevisionKey, value = "1") {
  const d = await store.createNewDraft(key);
  await d.updateResources(pkgFiles(key.packageName, value), "init");
  return d.closeDraft();
}

async function publish(store: GitContentStore, key: PackageRevisionKey, value = "1") {
  await draft(store, key, value);
  await store.updateLifecycle(key, "Proposed");
  return store.updateLifecycle(key, "Published");
}

const refNames = async (url: string) =>
  [...(await lsRemote(url)).keys()].filter(r => r !== "HEAD").sort();

describe.each(CLIENTS)("deletePackage with the %s client", client => {
  it("removes the draft branch of a Draft and the proposed branch of a Proposed revision", async () => {
    const { url, store } = await newStore(client);
    await draft(store, { packageName: "app", workspaceName: "d" });
    await draft(store, { packageName: "app", workspaceName: "p" });
    await store.updateLifecycle({ packageName: "app", workspaceName: "p" }, "Proposed");
    expect(await refNames(url)).toEqual([
      "refs/heads/drafts/app/d",
      "refs/heads/main",
      "refs/heads/proposed/app/p",
    ]);

    await store.deletePackage({ packageName: "app", workspaceName: "d" });
    expect(await refNames(url)).toEqual(["refs/heads/main", "refs/heads/proposed/app/p"]);
    await store.deletePackage({ packageName: "app", workspaceName: "p" });
    expect(await refNames(url)).toEqual(["refs/heads/main"]);
    expect(await store.listPackageRevisions()).toEqual([]);
    await expect(
      store.deletePackage({ packageName: "app", workspaceName: "d" }),
    ).rejects.toMatchObject({ code: "NotFound" });
  });

  it("removes tag and deletion proposal; the branch copy goes with the last published revision", async () => {
    const { url, store } = await newStore(client);
    await publish(store, { packageName: "app", workspaceName: "one" }, "1");
    await publish(store, { packageName: "app", workspaceName: "two" }, "2");
    await publish(store, { packageName: "other", workspaceName: "x" });
    await store.updateLifecycle({ packageName: "app", workspaceName: "two" }, "DeletionProposed");
    expect(await refNames(url)).toEqual([
      "refs/heads/deletionProposed/app/v2",
      "refs/heads/main",
      "refs/tags/app/v1",
      "refs/tags/app/v2",
      "refs/tags/other/v1",
    ]);

    // DeletionProposed v2: tag and proposal go; v1 remains, so the branch keeps the package.
    await store.deletePackage({ packageName: "app", workspaceName: "two" });
    expect(await refNames(url)).toEqual([
      "refs/heads/main",
      "refs/tags/app/v1",
      "refs/tags/other/v1",
    ]);
    expect(await filesAt(fx, url, "refs/heads/main", "app")).toEqual(pkgFiles("app", "2"));

    // Published v1 is the last one: its directory leaves the branch; other packages stay.
    await store.deletePackage({ packageName: "app", workspaceName: "one" });
    expect(await refNames(url)).toEqual(["refs/heads/main", "refs/tags/other/v1"]);
    expect(await filesAt(fx, url, "refs/heads/main", "app")).toEqual({});
    expect(await filesAt(fx, url, "refs/heads/main", "other")).toEqual(pkgFiles("other"));
    expect(
      (await store.listPackageRevisions()).map(r => `${r.packageName}/${r.workspaceName}`),
    ).toEqual(["other/main", "other/x"]);

    // The next publication of the package starts again after the highest remaining tag.
    expect((await publish(store, { packageName: "app", workspaceName: "three" })).revision).toBe(1);
  });

  it("deletes the branch placeholder by removing the package directory from the branch", async () => {
    const { url, store } = await newStore(client);
    await publish(store, { packageName: "app", workspaceName: "one" });
    await store.updateLifecycle({ packageName: "app", workspaceName: "main" }, "DeletionProposed");
    expect((await lsRemote(url)).has("refs/heads/deletionProposed/app/main")).toBe(true);
    await store.deletePackage({ packageName: "app", workspaceName: "main" });
    expect(await refNames(url)).toEqual(["refs/heads/main", "refs/tags/app/v1"]);
    expect(await filesAt(fx, url, "refs/heads/main", "app")).toEqual({});
    expect(
      (await store.listPackageRevisions()).map(r => `${r.workspaceName}:${r.revision}`),
    ).toEqual(["one:1"]);
  });
});
