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

  it("fetches a change with one ref advertisement and writes only the refs that changed", async () => {
    const url = await fx.repo();
    const work = await workClone(fx, url);
    await commitAndPush(work, "one");
    const kept = await commitAndPush(work, "two", "refs/tags/app/v1");
    await commitAndPush(work, "three", "drafts/app/ws1");
    await commitAndPush(work, "gone", "drafts/app/ws2");
    const { client, gitdir } = await fetchedClient(url);
    // The local copies of refs the remote keeps, marked (a ref file read back trimmed): a fetch
    // that rewrites them drops the mark.
    const marked = ["refs/tags/app/v1", "refs/remotes/origin/drafts/app/ws1"];
    for (const ref of marked) fs.writeFileSync(`${gitdir}/${ref}`, `${await oidOf(gitdir, ref)}`);
    const main = await commitAndPush(work, "four");
    await gitCli(work, "push", "-q", "origin", ":drafts/app/ws2");
    reset();
    const refs = await client.fetch();
    expect(seen).toEqual({ advertisements: 1, uploadPacks: 1 });
    expect(refs.get("refs/heads/main")?.commit).toBe(main);
    expect(refs.get("refs/tags/app/v1")?.commit).toBe(kept);
    expect([...refs.keys()].sort()).toEqual([
      "refs/heads/drafts/app/ws1",
      "refs/heads/main",
      "refs/tags/app/v1",
    ]);
    for (const ref of marked) expect(fs.readFileSync(`${gitdir}/${ref}`, "utf8")).not.toMatch(/\n/);
    expect((await git.readCommit({ fs, gitdir, oid: main })).commit.message).toBe("four\n");
  });
});

function oidOf(gitdir: string, ref: string): Promise<string> {
  return git.resolveRef({ fs, gitdir, ref });
}
