import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GitClient } from "../../../lib/git/client";
import { CliGitClient } from "../../../lib/git/cli-client";
import { IsoGitClient } from "../../../lib/git/iso-client";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import { gitNetworkFromEnv } from "../../../lib/git/network";

jest.setTimeout(60_000);

// A "tree bomb": trees that name one another list as far more entries than their bytes. Both
// clients stop a listing past PORCH_PEPR_GIT_MAX_TREE_ENTRIES (or its bytes) with
// ContentTooLarge instead of holding it all in memory.
let gitdir: string;
const git = (input: string, ...args: string[]) =>
  execFileSync("git", [`--git-dir=${gitdir}`, ...args], { input })
    .toString()
    .trim();
const mktree = (entries: [mode: string, type: string, oid: string, name: string][]) =>
  git(entries.map(([m, t, o, n]) => `${m} ${t} ${o}\t${n}\n`).join(""), "mktree");

let bomb: string;
let flat: string;
let chain: string;
let billion: string;
beforeAll(() => {
  gitdir = mkdtempSync(join(tmpdir(), "tree-bound-"));
  execFileSync("git", ["init", "--quiet", "--bare", gitdir]);
  const blob = git("a: 1\n", "hash-object", "-w", "--stdin");
  const kptfile = git("kind: Kptfile\n", "hash-object", "-w", "--stdin");
  // 10 × 10 × 10 names of one blob: 1111 entries from four small trees.
  const level = (name: string, oid: string, type: string, mode: string) =>
    mktree([...Array(10).keys()].map(i => [mode, type, oid, `${name}${i}`]));
  const t2 = level("f", blob, "blob", "100644");
  const t1 = level("e", t2, "tree", "040000");
  bomb = mktree([
    ["100644", "blob", kptfile, "Kptfile"],
    ...[...Array(10).keys()].map(
      i => ["040000", "tree", t1, `d${i}`] as [string, string, string, string],
    ),
  ]);
  // One directory of 150 files: a single tree object over a limit of 100 entries.
  flat = mktree([...Array(150).keys()].map(i => ["100644", "blob", blob, `f${i}`]));
  // The review's bomb: 1000 × 1000 × 1000 names of one blob, 10^9 entries from four trees.
  const wide = (name: string, oid: string, type: string, mode: string) =>
    mktree([...Array(1000).keys()].map(i => [mode, type, oid, `${name}${i}`]));
  billion = wide(
    "d",
    wide("e", wide("f", blob, "blob", "100644"), "tree", "040000"),
    "tree",
    "040000",
  );
  // 200 nested directories of 100-character names: few entries, paths that grow with depth.
  chain = blob;
  let type = "blob";
  for (let i = 0; i < 200; i++) {
    chain = mktree([[type === "blob" ? "100644" : "040000", type, chain, "x".repeat(100)]]);
    type = "tree";
  }
});
afterAll(() => rmSync(gitdir, { recursive: true, force: true }));

describe.each(["cli", "isomorphic"] as const)("tree listing bound (%s)", kind => {
  const clients: GitClient[] = [];
  const client = (maxTreeEntries: number): GitClient => {
    const network = {
      ...gitNetworkFromEnv(process.env),
      limits: { ...DEFAULT_CONTENT_LIMITS, maxTreeEntries },
    };
    const opts = { gitdir, url: "https://git.invalid/r.git", branch: "main", network };
    const c = kind === "cli" ? new CliGitClient(opts) : new IsoGitClient(opts);
    clients.push(c);
    return c;
  };
  afterAll(() => clients.forEach(c => c.close()));

  it("lists a tree at the limit", async () => {
    const listing = await client(1111).listTree(bomb);
    expect(listing).toHaveLength(1111);
    expect(listing.filter(e => e.type === "blob")).toHaveLength(1001);
  });

  it("refuses a tree with more entries than the limit, naming it and the setting", async () => {
    await expect(client(100).listTree(bomb)).rejects.toMatchObject({
      code: "ContentTooLarge",
      message: `git tree ${bomb} lists more than 100 entries or 25600 bytes, over the limit of 100 entries per tree listing (PORCH_PEPR_GIT_MAX_TREE_ENTRIES)`,
    });
  });

  it("refuses one tree object with more entries than the limit, naming it and the setting", async () => {
    expect(await client(150).readTree(flat)).toHaveLength(150);
    await expect(client(100).readTree(flat)).rejects.toMatchObject({
      code: "ContentTooLarge",
      message: `git tree ${flat} has more than 100 entries, over the limit of 100 entries per tree listing (PORCH_PEPR_GIT_MAX_TREE_ENTRIES)`,
    });
  });

  it("ends the listing of 10^9 entries at the default limit", async () => {
    await expect(
      client(DEFAULT_CONTENT_LIMITS.maxTreeEntries).listTree(billion),
    ).rejects.toMatchObject({
      code: "ContentTooLarge",
      message: expect.stringContaining("over the limit of 100000 entries per tree listing"),
    });
  });

  it("refuses a deep tree whose paths are over the listing's bytes", async () => {
    expect(await client(100_000).listTree(chain)).toHaveLength(200);
    await expect(client(1000).listTree(chain)).rejects.toMatchObject({
      code: "ContentTooLarge",
      message: expect.stringContaining("(PORCH_PEPR_GIT_MAX_TREE_ENTRIES)"),
    });
  });
});
