import { GitContentStore, isGitStoreError } from "../../../lib/git";
import { CLIENTS, lsRemote, pkgFiles, startFixture, type Fixture } from "./helpers";

jest.setTimeout(60_000);

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

describe.each(CLIENTS)("unsafe file names with the %s client", client => {
  it.each([".GIT/config", "a\u0000b.yaml", "sub/../../escape.yaml", "a\\b.yaml"])(
    "refuses to commit %j and pushes nothing",
    async name => {
      const url = await fx.repo();
      const store = new GitContentStore(
        { url, createBranch: true, directory: "" },
        { cacheRoot: await fx.cacheRoot(), client },
      );
      try {
        const draft = await store.createNewDraft({ packageName: "app", workspaceName: "ws" });
        const error = await draft
          .updateResources({ ...pkgFiles("app"), [name]: "x: 1\n" }, "edit")
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(isGitStoreError(error, "InvalidArgument")).toBe(true);
        expect((error as Error).message).toContain("invalid file path");
        expect((error as Error).message).not.toMatch(/[\u0000-\u001f]/);
        expect([...(await lsRemote(url)).keys()].some(ref => ref.includes("drafts/"))).toBe(false);
      } finally {
        store.close();
      }
    },
  );
});

describe.each(CLIENTS)("an unsafe repository directory with the %s client", client => {
  // Package names are checked when a key is made; the directory is the rest of the path.
  it.each([".git", "x/.GIT", "a/../.."])(
    "refuses to write below directory %j and pushes nothing",
    async directory => {
      const url = await fx.repo();
      const store = new GitContentStore(
        { url, createBranch: true, directory },
        { cacheRoot: await fx.cacheRoot(), client },
      );
      try {
        const error = await (async () => {
          const draft = await store.createNewDraft({ packageName: "hooks", workspaceName: "ws" });
          await draft.updateResources({ ...pkgFiles("hooks"), "pre-commit": "x: 1\n" }, "edit");
          await draft.closeDraft();
        })().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isGitStoreError(error, "InvalidArgument")).toBe(true);
        expect((error as Error).message).toContain("invalid package path");
        expect([...(await lsRemote(url)).keys()].some(ref => ref.includes("drafts/"))).toBe(false);
      } finally {
        store.close();
      }
    },
  );
});
