import { GitContentStore, type GitClientKind, type PackageRevisionInfo } from "../../../lib/git";
import { selectRevision } from "../../../lib/git/revision-rank";
import { CLIENTS, git, pkgFiles, startFixture, track, workClone, type Fixture } from "./helpers";

jest.setTimeout(60_000);

function rev(
  workspaceName: string,
  revision: number,
  lifecycle: PackageRevisionInfo["lifecycle"] = revision === 0 ? "Draft" : "Published",
  packageName = "app",
): PackageRevisionInfo {
  return { packageName, workspaceName, revision, lifecycle, commit: "c", ref: "r", path: "app" };
}

describe("the one revision ranking (selectRevision)", () => {
  const key = { packageName: "app", workspaceName: "w" };
  const placeholder = rev("w", -1);
  const v1 = rev("w", 1);
  const v2 = rev("w", 2, "DeletionProposed");
  const draft = rev("w", 0);

  it("takes a draft or proposal over a tag, and a tag over the placeholder", () => {
    expect(selectRevision([placeholder, v1, draft], key)).toBe(draft);
    expect(selectRevision([draft, v1, placeholder], key)).toBe(draft);
    expect(selectRevision([placeholder, v1], key)).toBe(v1);
    expect(selectRevision([v1, placeholder], key)).toBe(v1);
    expect(selectRevision([placeholder], key)).toBe(placeholder);
  });

  it("takes the highest revision among tags, whatever the order", () => {
    expect(selectRevision([v1, v2], key)).toBe(v2);
    expect(selectRevision([v2, v1], key)).toBe(v2);
  });

  it("looks only at the key's package and workspace", () => {
    const other = [rev("x", 0), rev("w", 0, "Draft", "other"), rev("x", 3)];
    expect(selectRevision(other, key)).toBeUndefined();
    expect(selectRevision([...other, v1], key)).toBe(v1);
  });
});

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

describe.each(CLIENTS)("ContentStore.findRevision with the %s client", (client: GitClientKind) => {
  it("ranks what git holds for a workspace, and is undefined for an unknown one", async () => {
    const url = await fx.repo();
    const store = track(
      new GitContentStore({ url, createBranch: true }, { cacheRoot: await fx.cacheRoot(), client }),
    );
    const key = { packageName: "app", workspaceName: "w" };
    const draft = await store.createNewDraft(key);
    await draft.updateResources(pkgFiles("app"), "init");
    await draft.closeDraft();
    await store.updateLifecycle(key, "Proposed");
    await store.updateLifecycle(key, "Published");
    expect(await store.findRevision(key)).toMatchObject({ lifecycle: "Published", revision: 1 });
    expect(await store.findRevision({ packageName: "app", workspaceName: "main" })).toMatchObject({
      revision: -1,
    });
    expect(await store.findRevision({ packageName: "app", workspaceName: "nope" })).toBeUndefined();

    // Refs written by hand: a second tag of the same workspace, then a draft branch of it.
    const work = await workClone(fx, url);
    await git(work, "push", "--quiet", "origin", "refs/remotes/origin/main:refs/tags/app/v2");
    expect(await store.findRevision(key)).toMatchObject({ lifecycle: "Published", revision: 2 });
    await git(
      work,
      "push",
      "--quiet",
      "origin",
      "refs/remotes/origin/main:refs/heads/drafts/app/w",
    );
    expect(await store.findRevision(key)).toMatchObject({ lifecycle: "Draft", revision: 0 });
  });
});
