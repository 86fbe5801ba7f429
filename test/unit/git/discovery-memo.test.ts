import { createHash } from "node:crypto";
import type { CommitInfo, GitClient, TreeEntry } from "../../../lib/git/client";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import { Discovery, HEAD_LISTING_LIMIT, HISTORY_MAX_PACKAGES } from "../../../lib/git/discovery";
import { newDiscoveryMemos } from "../../../lib/git/discovery-memos";
import { annotateMessage } from "../../../lib/git/layout";

// A branch listing is worth keeping only while its commit is the branch's head; a fleet's
// deployment branch gets a new head at every publish, so the listings kept must be bounded, and
// the listing of a new head reads only the trees that changed.

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n";

/** A directory: a name maps to a file's text or a subdirectory. */
type Dir = { [name: string]: string | Dir };

/** Content-addressed in-memory objects, counting the trees and commits read. */
function fakeGit() {
  const trees = new Map<string, TreeEntry[]>();
  const commits = new Map<string, CommitInfo>();
  const reads: string[] = [];
  const id = (text: string) => createHash("sha1").update(text).digest("hex");
  const writeDir = (dir: Dir): string => {
    const entries: TreeEntry[] = Object.entries(dir)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, v]) =>
        typeof v === "string"
          ? { mode: "100644", path, oid: `blob:${v}`, type: "blob" }
          : { mode: "040000", path, oid: writeDir(v), type: "tree" },
      );
    const oid = id(JSON.stringify(entries));
    trees.set(oid, entries);
    return oid;
  };
  const who = { name: "a", email: "a@example.com", timestamp: 0, timezoneOffset: 0 };
  const commit = (dir: Dir, parent?: string, message = ""): string => {
    const tree = writeDir(dir);
    const oid = id(`${tree} ${parent} ${message}`);
    const parents = parent === undefined ? [] : [parent];
    const author = { ...who, timestamp: commits.size };
    commits.set(oid, { oid, tree, parents, message, author, committer: who });
    return oid;
  };
  const client: Partial<GitClient> = {
    readCommit: async oid => commits.get(oid)!,
    readTree: async oid => {
      reads.push(oid);
      return trees.get(oid)!;
    },
    readBlobs: async oids =>
      new Map(oids.map(oid => [oid, Buffer.from(oid.slice("blob:".length))])),
    log: async (oid, max) => {
      reads.push(`log ${oid}`);
      const out: CommitInfo[] = [];
      for (let c = commits.get(oid); c !== undefined && out.length < max; )
        c = (out.push(c), commits.get(c.parents[0]));
      return out;
    },
  };
  return { client: client as GitClient, commit, reads };
}

/** n packages under dirs a/ and b/, the i-th with `value` in its file. */
function fleet(n: number, value = (_: number) => "1"): Dir {
  const dir: Dir = { a: {}, b: {}, Kptfile: KPTFILE };
  for (let i = 0; i < n; i++)
    (dir[i % 2 ? "a" : "b"] as Dir)[`p${i}`] = { Kptfile: KPTFILE, "cm.yaml": value(i) };
  return dir;
}

it("lists a head again once more than HEAD_LISTING_LIMIT newer heads were listed", async () => {
  const { client, commit, reads } = fakeGit();
  const discovery = new Discovery(client);
  const heads = Array.from({ length: HEAD_LISTING_LIMIT + 1 }, (_, i) =>
    commit(fleet(4, p => `${p}-${i}`)),
  );
  for (const head of heads) await discovery.packagesOnCommit(head, "");
  const before = reads.length;
  await discovery.packagesOnCommit(heads[0], "");
  expect(reads.length).toBeGreaterThan(before);
});

it("reuses the listing of a head listed recently", async () => {
  const { client, commit, reads } = fakeGit();
  const discovery = new Discovery(client);
  const head = commit(fleet(4));
  await discovery.packagesOnCommit(head, "");
  const before = reads.length;
  await discovery.packagesOnCommit(head, "");
  expect(reads.length).toBe(before);
});

it("lists a new head by reading only the trees on the changed package's path", async () => {
  const { client, commit, reads } = fakeGit();
  const discovery = new Discovery(client);
  const first = commit(fleet(100));
  const listed = await discovery.packagesOnCommit(first, "");
  expect([...listed.keys()]).toHaveLength(100);
  const next = commit(
    fleet(101, i => (i === 7 ? "2" : "1")),
    first,
  );
  const before = reads.length;
  const relisted = await discovery.packagesOnCommit(next, "");
  // The root, a/ and b/, each with its last version (which subtrees changed), a/p7 (changed) and
  // b/p100 (new); none of the 99 other packages.
  expect(reads.length - before).toBe(8);
  // What a listing from nothing finds.
  expect(relisted).toEqual(await new Discovery(client).packagesOnCommit(next, ""));
  expect(relisted.get("a/p7")?.tree).not.toBe(listed.get("a/p7")?.tree);
  expect(relisted.get("a/p9")).toBe(listed.get("a/p9"));
});

it("counts a listing the same whether its subtrees are read or kept", async () => {
  const { client, commit } = fakeGit();
  const first = commit(fleet(40));
  const next = commit(fleet(41), first);
  const limits = (maxTreeEntries: number) => ({ ...DEFAULT_CONTENT_LIMITS, maxTreeEntries });
  // Three root entries, a/ and b/ with 41 packages between them: 44 entries.
  const fresh = (max: number) => new Discovery(client, limits(max)).packagesOnCommit(next, "");
  await expect(fresh(44)).resolves.toHaveProperty("size", 41);
  await expect(fresh(43)).rejects.toMatchObject({ code: "ContentTooLarge" });
  for (const [max, ok] of [
    [44, true],
    [43, false],
  ] as const) {
    const incremental = new Discovery(client, limits(max));
    await incremental.packagesOnCommit(first, "");
    const listing = incremental.packagesOnCommit(next, "");
    if (ok) await expect(listing).resolves.toHaveProperty("size", 41);
    else await expect(listing).rejects.toMatchObject({ code: "ContentTooLarge" });
  }
});

it("finds each placeholder's publish record from the last history and the new commits only", async () => {
  const { client, commit, reads } = fakeGit();
  const published = (path: string) => annotateMessage("publish", { package: path } as never);
  const scope = { branch: "main", directory: "" };
  const listing = async (d: Discovery, head: string) =>
    (await d.list(new Map([["refs/heads/main", { oid: head, commit: head }]]), scope)).map(
      r => `${r.packageName} ${r.publishedAt ?? "-"}`,
    );
  const discovery = new Discovery(client);
  // a/p1 published at the start, b/p0 now and then: past 1000 commits a/p1's record is out of
  // the history read, on either path.
  let head = commit(fleet(2), undefined, published("a/p1"));
  expect(await listing(discovery, head)).toEqual(["a/p1 1970-01-01T00:00:00.000Z", "b/p0 -"]);
  for (let i = 1; i <= 1030; i++) {
    head = commit(fleet(2), head, i % 97 === 0 ? published("b/p0") : "");
    if (i % 60 !== 0 && i < 1025) continue;
    const logs = reads.filter(r => r.startsWith("log ")).length;
    expect(await listing(discovery, head)).toEqual(await listing(new Discovery(client), head));
    expect(reads.filter(r => r.startsWith("log ")).length).toBe(logs + 1); // the fresh one's
  }
  expect(await listing(discovery, head)).toEqual(["a/p1 -", "b/p0 1970-01-01T00:16:10.000Z"]);
});

// One package tree named by many directories (a few bytes each in git) was read once per
// directory: 2,000 directories naming a 1.2 MB tree took 2,001 reads and 123 s.
it("reads a package tree that many directories name once in a listing", async () => {
  const { client, commit, reads } = fakeGit();
  const dir: Dir = {};
  for (let i = 0; i < 200; i++) dir[`d${i}`] = { Kptfile: KPTFILE, "cm.yaml": "same" };
  const listed = await new Discovery(client).packagesOnCommit(commit(dir), "");
  expect(listed.size).toBe(200);
  expect(new Set([...listed.values()].map(p => p.tree)).size).toBe(1);
  expect(reads).toHaveLength(2); // the root and the one package tree
});

// Kptfiles were kept per Repository with no byte bound (a long upstreamLock.git.repo kept whole
// for each), and each Repository kept 16 MiB of commits of its own: a tenant's Repositories
// multiplied both. One bound now holds for every Repository of the process.
it("keeps the Kptfiles of every Repository within one byte bound", async () => {
  const { client, commit } = fakeGit();
  const bound = 256 * 1024;
  const memos = newDiscoveryMemos(bound, bound);
  const locked = (i: number, repo: string) =>
    `${KPTFILE}upstreamLock:\n  type: git\n  git:\n    repo: https://example.com/${"r".repeat(10_000)}/${repo}/${i}.git\n`;
  let listed = 0;
  for (const repo of ["one", "two", "three"]) {
    const dir: Dir = {};
    for (let i = 0; i < 40; i++) dir[`p${i}`] = { Kptfile: locked(i, repo) };
    const discovery = new Discovery(client, DEFAULT_CONTENT_LIMITS, repo, memos);
    listed += (await discovery.packagesOnCommit(commit(dir), "")).size;
  }
  expect(listed).toBe(120); // about 20 KB kept for each read: 2.4 MB without the bound
  expect(memos.kptfiles.bytes).toBeGreaterThan(0);
  expect(memos.kptfiles.bytes).toBeLessThanOrEqual(bound);
});

// Every `kpt:` line of a commit naming another package was a record kept for the Repository's
// life: 16 commits of 1 MiB recorded 650,000 (about 240 MB). A history records at most
// HISTORY_MAX_PACKAGES packages; past it, later (older) records are not kept.
it("records at most HISTORY_MAX_PACKAGES packages of a branch's publish history", async () => {
  const { client, commit } = fakeGit();
  const junk = Array.from(
    { length: HISTORY_MAX_PACKAGES },
    (_, i) => `kpt:${JSON.stringify({ package: `junk/${i}` })}`,
  ).join("\n");
  const first = commit(
    fleet(2),
    undefined,
    annotateMessage("publish", { package: "a/p1" } as never),
  );
  const head = commit(fleet(2), first, `${junk}\n`);
  const scope = { branch: "main", directory: "" };
  const listed = await new Discovery(client).list(
    new Map([["refs/heads/main", { oid: head, commit: head }]]),
    scope,
  );
  // a/p1's record, older than the junk, found no room.
  expect(listed.map(r => `${r.packageName} ${r.publishedAt ?? "-"}`)).toEqual(["a/p1 -", "b/p0 -"]);
});
