import fs from "node:fs";
import git from "isomorphic-git";
import { IsoGitClient } from "../../../lib/git/iso-client";
import { git as gitCli, startFixture, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

async function commitAndPush(work: string, value: string): Promise<string> {
  await writeFiles(work, { "file.txt": value });
  await gitCli(work, "add", ".");
  await gitCli(work, "commit", "-qm", value);
  await gitCli(work, "push", "-q", "origin", "HEAD:main");
  return (await gitCli(work, "rev-parse", "HEAD")).trim();
}

describe("IsoGitClient.fetch", () => {
  it("recovers from a local ref to an object a fetch did not bring", async () => {
    const url = await fx.repo();
    const work = await workClone(fx, url);
    await commitAndPush(work, "one");
    const gitdir = await fx.cacheRoot();
    const client = new IsoGitClient({ gitdir, url, branch: "main" });
    await client.init();
    await client.fetch();
    // What a fetch that raced a push can leave: the remote's new oid stored as the ref while
    // its objects never arrived. The ref matches the remote, so nothing looks out of date.
    const two = await commitAndPush(work, "two");
    await git.writeRef({ fs, gitdir, ref: "refs/remotes/origin/main", value: two, force: true });
    const refs = await client.fetch();
    expect(refs.get("refs/heads/main")?.commit).toBe(two);
    expect((await git.readCommit({ fs, gitdir, oid: two })).commit.message).toBe("two\n");
  });
});
