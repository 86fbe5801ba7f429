// What the isomorphic-git client leaves in its cache after a fetch or a push, and what that
// costs the next fetch: counted as the requests the real git server receives.
import fs from "node:fs";
import git from "isomorphic-git";
import { IsoGitClient } from "../../../lib/git/iso-client";
import { git as gitCli, startFixture, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

/** Requests the server received, by kind. */
const seen = { advertisements: 0, uploadPacks: 0 };
const reset = () => Object.assign(seen, { advertisements: 0, uploadPacks: 0 });

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture({
    onRequest: ({ method, path }) => {
      if (method === "GET" && path.includes("/info/refs?service=git-upload-pack"))
        seen.advertisements++;
      if (method === "POST" && path.endsWith("/git-upload-pack")) seen.uploadPacks++;
    },
  });
});
afterAll(() => fx.close());

async function commitAndPush(work: string, value: string, ref = "main"): Promise<string> {
  await writeFiles(work, { "file.txt": value });
  await gitCli(work, "add", ".");
  await gitCli(work, "commit", "-qm", value);
  await gitCli(work, "push", "-q", "origin", `HEAD:${ref}`);
  return (await gitCli(work, "rev-parse", "HEAD")).trim();
}

async function fetchedClient(url: string): Promise<{ client: IsoGitClient; gitdir: string }> {
  const gitdir = await fx.cacheRoot();
  const client = new IsoGitClient({ gitdir, url, branch: "main" });
  await client.init();
  await client.fetch();
  return { client, gitdir };
}

describe("IsoGitClient refs", () => {
  it("keeps a pushed tag as the tag, so the next fetch has nothing to fetch", async () => {
    const url = await fx.repo();
    const head = await commitAndPush(await workClone(fx, url), "one");
    const { client, gitdir } = await fetchedClient(url);
    await client.push([{ ref: "refs/tags/app/v1", oid: head, expect: null }]);
    const tracking = await git.listRefs({ fs, gitdir, filepath: "refs/remotes/origin" });
    expect(tracking.filter(r => r.startsWith("refs/"))).toEqual([]);
    reset();
    const refs = await client.fetch();
    expect(refs.get("refs/tags/app/v1")?.commit).toBe(head);
    expect([...refs.keys()].sort()).toEqual(["refs/heads/main", "refs/tags/app/v1"]);
    expect(seen).toEqual({ advertisements: 1, uploadPacks: 0 });

    await client.push([{ ref: "refs/tags/app/v1", oid: null, expect: head }]);
    reset();
    expect([...(await client.fetch()).keys()]).toEqual(["refs/heads/main"]);
    expect(seen).toEqual({ advertisements: 1, uploadPacks: 0 });
  });
});
