import type { GitClient, TreeEntry } from "../../../lib/git/client";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import { encodeTree, parseTree } from "../../../lib/git/loose-objects";
import { readFiles, walkTree } from "../../../lib/git/tree";

// Package reads parse tree objects themselves (no `git ls-tree` per read): the objects come from
// a tenant's server, so the parser refuses what git would not have written instead of looping
// or reading past the end.
const OID = "ce013625030ba8dba906f756967f9e9ca394464a";
const entry = (mode: string, name: string) =>
  Buffer.concat([Buffer.from(`${mode} ${name}\0`, "utf8"), Buffer.from(OID, "hex")]);

describe("parseTree", () => {
  it("reads every mode git writes, names byte for byte, and old file modes as written", () => {
    const body = Buffer.concat([
      entry("100644", "a.yaml"),
      entry("100755", "run.sh"),
      entry("120000", "link"),
      entry("40000", "dir"),
      entry("160000", "sub"),
      entry("100664", "old"),
      entry("100644", "caf\u00e9 \u{1f600}.yaml"),
    ]);
    expect(parseTree(body).map(e => [e.mode, e.type, e.path])).toEqual([
      ["100644", "blob", "a.yaml"],
      ["100755", "blob", "run.sh"],
      ["120000", "blob", "link"],
      ["040000", "tree", "dir"],
      ["160000", "commit", "sub"],
      ["100664", "blob", "old"],
      ["100644", "blob", "caf\u00e9 \u{1f600}.yaml"],
    ]);
    expect(parseTree(body).every(e => e.oid === OID)).toBe(true);
    // Written again, the tree is the same bytes: a rewrite keeps the ids of what it did not touch.
    expect(encodeTree(parseTree(body)).equals(body)).toBe(true);
    expect(parseTree(Buffer.alloc(0))).toEqual([]);
  });

  it.each([
    ["a cut-short oid", entry("100644", "a").subarray(0, 20), "entry at byte 0 is cut short"],
    ["no NUL", Buffer.from("100644 a".repeat(10)), "entry at byte 0 is cut short"],
    ["no space", Buffer.from("x".repeat(40)), "entry at byte 0 is cut short"],
    ["an unknown mode", entry("777", "a"), 'entry at byte 0 has mode "777"'],
    ["an empty name", entry("100644", ""), 'entry at byte 0 is named ""'],
    ["a dot-dot name", entry("40000", ".."), 'entry at byte 0 is named ".."'],
    ["a slash in a name", entry("100644", "a/b"), 'entry at byte 0 is named "a/b"'],
    [
      "garbage after a good entry",
      Buffer.concat([entry("100644", "a"), Buffer.from("junk")]),
      "entry at byte 29 is cut short",
    ],
  ])("refuses a tree with %s, naming the tree", (_, body, why) => {
    expect(() => parseTree(body, "t1")).toThrow(`git tree t1 is malformed: ${why}`);
  });

  // Oids full of NULs: the count skips each entry's 20 oid bytes, not just to the next NUL.
  const zeros = (n: number) =>
    Buffer.concat(
      [...Array(n).keys()].map(i =>
        Buffer.concat([Buffer.from(`100644 f${i}\0`), Buffer.alloc(20)]),
      ),
    );

  it("reads a tree of exactly the entry limit", () => {
    expect(parseTree(zeros(3), "t1", 3)).toHaveLength(3);
  });

  it("refuses a tree over the entry limit, naming the tree and the setting", () => {
    expect(() => parseTree(zeros(4), "t1", 3)).toThrow(
      expect.objectContaining({
        code: "ContentTooLarge",
        message:
          "git tree t1 has more than 3 entries, over the limit of 3 entries per tree listing (PORCH_PEPR_GIT_MAX_TREE_ENTRIES)",
      }),
    );
  });

  it("refuses the default limit's tree bomb before building its entries", () => {
    // 25 MB of one-character names within the bytes a tree may take (256 per entry): over
    // 900,000 entries, each an object before the fix (measured: 8 s and 160 MB of heap).
    const one = Buffer.concat([Buffer.from("100644 a\0"), Buffer.alloc(20)]);
    const body = Buffer.alloc(Math.floor((100_000 * 256) / one.length) * one.length);
    for (let at = 0; at < body.length; at += one.length) one.copy(body, at);
    expect(() => parseTree(body, "bomb")).toThrow(
      "git tree bomb has more than 100000 entries, over the limit of 100000 entries per tree listing (PORCH_PEPR_GIT_MAX_TREE_ENTRIES)",
    );
  });
});

/** A client over in-memory trees and blobs, counting what is read. */
function memoryClient(trees: Record<string, TreeEntry[]>, blobs: Record<string, string>) {
  const reads = { trees: 0, blobBatches: [] as number[] };
  const client: Partial<GitClient> = {
    readTree: async oid => {
      reads.trees++;
      return trees[oid];
    },
    readBlobs: async oids => {
      reads.blobBatches.push(oids.length);
      return new Map(oids.map(o => [o, Buffer.from(blobs[o], "utf8")]));
    },
  };
  const walked = client as GitClient;
  walked.listTree = oid => walkTree(walked, oid, DEFAULT_CONTENT_LIMITS);
  return { client: walked, reads };
}

const blob = (path: string, oid: string): TreeEntry => ({
  mode: "100644",
  path,
  oid,
  type: "blob",
});
const tree = (path: string, oid: string): TreeEntry => ({
  mode: "040000",
  path,
  oid,
  type: "tree",
});

describe("walkTree", () => {
  it("lists depth first with relative paths, as git ls-tree -r -t does", async () => {
    const { client } = memoryClient(
      {
        root: [blob("Kptfile", "k"), tree("a", "ta"), blob("z.yaml", "z")],
        ta: [tree("b", "tb"), blob("c.yaml", "c")],
        tb: [blob("d.yaml", "d")],
      },
      {},
    );
    expect((await walkTree(client, "root", DEFAULT_CONTENT_LIMITS)).map(e => e.path)).toEqual([
      "Kptfile",
      "a",
      "a/b",
      "a/b/d.yaml",
      "a/c.yaml",
      "z.yaml",
    ]);
  });
});

describe("readFiles without sizes in the listing", () => {
  const files = 40;
  const { client, reads } = memoryClient(
    { root: [...Array(files).keys()].map(i => blob(`f${String(i).padStart(2, "0")}`, `b${i}`)) },
    Object.fromEntries([...Array(files).keys()].map(i => [`b${i}`, "x".repeat(100)])),
  );

  it("stops reading a package once its files are over the per-package limit", async () => {
    const limits = { ...DEFAULT_CONTENT_LIMITS, maxPackageBytes: 1000 };
    await expect(readFiles(client, "root", limits)).rejects.toMatchObject({
      code: "ContentTooLarge",
      message:
        "the package's files are more than 1600 bytes in all, over the per-package limit of 1000 bytes (PORCH_PEPR_GIT_MAX_PACKAGE_BYTES)",
    });
    expect(reads.blobBatches).toEqual([16]);
  });

  it("names the exact total when the last batch takes the package over", async () => {
    const limits = { ...DEFAULT_CONTENT_LIMITS, maxPackageBytes: 3500 };
    await expect(readFiles(client, "root", limits)).rejects.toMatchObject({
      message:
        "the package's files are 4000 bytes in all, over the per-package limit of 3500 bytes (PORCH_PEPR_GIT_MAX_PACKAGE_BYTES)",
    });
  });
});
