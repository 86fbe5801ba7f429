import { GitContentStore, isGitStoreError } from "../../../lib/git";
import { CLIENTS, git, startFixture, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

// A clone from a raw git URL reads a directory at a tag, a branch or a commit of a repository
// that need not follow Porch's layout (no Porch branch, no kpt annotations).
let fx: Fixture;
let url: string;
let commit: string;
beforeAll(async () => {
  fx = await startFixture();
  url = await fx.repo("plain", "trunk");
  const work = await workClone(fx, url);
  await git(work, "checkout", "-q", "-b", "trunk");
  await writeFiles(work, {
    "catalog/nginx/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: nginx\n",
    "catalog/nginx/svc.yaml": "kind: Service\n",
  });
  await git(work, "add", ".");
  await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v1");
  await git(work, "tag", "release-1");
  commit = (await git(work, "rev-parse", "HEAD")).trim();
  await writeFiles(work, { "catalog/nginx/svc.yaml": "kind: Service # v2\n" });
  await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "v2");
  await git(work, "push", "-q", "origin", "trunk", "--tags");
});
afterAll(() => fx.close());

describe.each(CLIENTS)("readAtRef (%s)", client => {
  const store = async () =>
    new GitContentStore({ url }, { cacheRoot: await fx.cacheRoot(), client });

  it("reads a directory at a tag, a branch and a commit", async () => {
    const s = await store();
    const atTag = await s.readAtRef("release-1", "catalog/nginx");
    expect(atTag.commit).toBe(commit);
    expect(atTag.files["svc.yaml"]).toBe("kind: Service\n");
    expect((await s.readAtRef("trunk", "/catalog/nginx/")).files["svc.yaml"]).toBe(
      "kind: Service # v2\n",
    );
    expect((await s.readAtRef(commit, "catalog/nginx")).files.Kptfile).toContain("name: nginx");
    s.close();
  });

  it("says which ref or directory is missing", async () => {
    const s = await store();
    await expect(s.readAtRef("nope", "catalog/nginx")).rejects.toThrow('ref "nope" not found');
    const error = await s.readAtRef("trunk", "catalog/other").catch(e => e);
    expect(isGitStoreError(error, "NotFound")).toBe(true);
    expect(error.message).toContain('directory "catalog/other" not found at trunk');
    s.close();
  });
});
