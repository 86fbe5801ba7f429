import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import git from "isomorphic-git";
import { IsoGitClient } from "../../../lib/git/iso-client";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import { storedObjectSize } from "../../../lib/git/iso-object-size";
import { gitNetworkFromEnv } from "../../../lib/git/network";

jest.setTimeout(60_000);

// isomorphic-git inflates an object whole before its size is known: a blob of 16 MiB (the
// per-object limit) was inflated to be refused by the 1 MiB per-file limit. The client reads
// the size from the stored header first (a delta's from the first bytes of its data).
let gitdir: string;
const run = (input: string | Buffer, ...args: string[]) =>
  execFileSync("git", [`--git-dir=${gitdir}`, ...args], { input, maxBuffer: 1 << 26 })
    .toString()
    .trim();
const blobOf = (text: string) => run(text, "hash-object", "-w", "--stdin");

/** Every object of the repository with the size git gives it. */
const sizes = () =>
  run("", "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objectsize)")
    .split("\n")
    .map(l => l.split(" "))
    .map(([oid, size]) => [oid, Number(size)] as const);

/** Lines of the text with line `n` changed: a delta of its neighbours in a pack. */
const text = (n: number) =>
  [...Array(400).keys()].map(i => (i === n ? `changed ${n}` : `line ${i} of a file`)).join("\n");

let big: string;
let bigToo: string;
let small: string;
beforeAll(() => {
  gitdir = mkdtempSync(join(tmpdir(), "object-size-"));
  execFileSync("git", ["init", "--quiet", "--bare", gitdir]);
  for (let n = 0; n < 6; n++) blobOf(text(n));
  // Two large blobs alike: one is stored as a delta of the other.
  big = blobOf(`${text(7)}\n${"x".repeat(1 << 20)}`);
  bigToo = blobOf(`${text(8)}\n${"x".repeat(1 << 20)}`);
  small = blobOf("kind: Kptfile\n");
});
afterAll(() => rmSync(gitdir, { recursive: true, force: true }));

/** Every object into one new pack, with deltas found again; the loose copies removed. */
const repack = (flags: string[]) => {
  const packs = join(gitdir, "objects/pack");
  const all = sizes().map(([oid]) => `${oid}\n`);
  const name = run(
    all.join(""),
    "pack-objects",
    "-q",
    "--no-reuse-delta",
    ...flags,
    `${packs}/pack`,
  );
  for (const old of readdirSync(packs)) if (!old.includes(name)) rmSync(join(packs, old));
  run("", "prune-packed");
};

/** Objects stored as deltas in the repository's one pack (git verify-pack names their bases). */
const deltas = () => {
  const packs = join(gitdir, "objects/pack");
  const idx = join(packs, readdirSync(packs).find(n => n.endsWith(".idx"))!);
  return run("", "verify-pack", "-v", idx)
    .split("\n")
    .filter(l => /^[0-9a-f]{40} blob .* [0-9a-f]{40}$/.test(l))
    .map(l => l.slice(0, 40));
};

describe("storedObjectSize", () => {
  it("reads a loose object's size from its header", async () => {
    for (const [oid, size] of sizes()) expect(await storedObjectSize(gitdir, oid)).toBe(size);
    expect(await storedObjectSize(gitdir, "0".repeat(40))).toBeUndefined();
  });

  it.each([
    ["offset deltas", ["--delta-base-offset"]],
    ["ref deltas", []],
  ])("reads a packed object's size, and a delta's from its data (%s)", async (_, offsets) => {
    repack(offsets);
    expect(deltas().length).toBeGreaterThanOrEqual(5);
    for (const [oid, size] of sizes()) expect(await storedObjectSize(gitdir, oid)).toBe(size);
  });
});

describe("isomorphic-git client reads", () => {
  const client = () =>
    new IsoGitClient({
      gitdir,
      url: "https://git.invalid/r.git",
      branch: "main",
      network: {
        ...gitNetworkFromEnv(process.env),
        limits: { ...DEFAULT_CONTENT_LIMITS, maxFileBytes: 64 * 1024 },
      },
    });
  afterEach(() => jest.restoreAllMocks());

  it("refuses a blob over the per-file limit without inflating it, a delta's too", async () => {
    expect(deltas()).toEqual(expect.arrayContaining([expect.stringMatching(`${big}|${bigToo}`)]));
    const readBlob = jest.spyOn(git, "readBlob");
    const c = client();
    // The first read loads the pack's index: the sizes below come from it, not from files.
    expect((await c.readBlobs([small])).get(small)?.toString()).toBe("kind: Kptfile\n");
    for (const oid of [big, bigToo]) {
      const size = sizes().find(([o]) => o === oid)![1];
      await expect(c.readBlobs([oid])).rejects.toMatchObject({
        code: "ContentTooLarge",
        message: `git object ${oid} is ${size} bytes, over the per-file limit of 65536 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)`,
      });
    }
    // isomorphic-git, which inflates an object whole, was asked for neither.
    expect(readBlob).toHaveBeenCalledTimes(1);
    c.close();
  });
});
