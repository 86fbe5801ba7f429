import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UnindexablePack, applyDelta, packIndex } from "../../../lib/git/iso-pack-index";
import {
  TYPE,
  appendingDelta,
  buildPack,
  copyingDelta,
  deltaVarint,
  oidOf,
  plain,
} from "../../support/crafted-pack";
import { deflateSync } from "node:zlib";

// The index of a fetched pack, built from the one buffer it is in: byte for byte the .idx git's
// own index-pack writes for the same pack, deltas by offset and by id included.
const none = () => Promise.resolve(undefined);
const noWait = () => Promise.resolve();

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pack-index-"));
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...args]);
  git("init", "-q");
  const text = Array.from({ length: 3000 }, (_, i) => `line ${i}\n`).join("");
  for (let i = 0; i < 6; i++) {
    await writeFile(join(dir, "f.txt"), `${text}change ${i}\n`);
    await writeFile(join(dir, `g${i}.txt`), `${i}`);
    git("add", ".");
    git("commit", "-qm", `c${i}`);
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A pack of the repository as git writes it, and the index git makes of it. */
async function gitPack(flags: string[]): Promise<{ pack: Buffer; idx: Buffer }> {
  const pack = execFileSync(
    "git",
    ["-C", dir, "pack-objects", "--stdout", "--revs", "-q", ...flags],
    {
      input: "HEAD\n",
    },
  );
  const file = join(dir, `p${flags.length}.pack`);
  await writeFile(file, pack);
  execFileSync("git", ["index-pack", "--index-version=2", file]);
  return { pack, idx: await readFile(file.replace(/\.pack$/, ".idx")) };
}

describe("packIndex", () => {
  it.each([[[]], [["--delta-base-offset"]]])(
    "makes the index git makes of a pack with deltas (%j)",
    async flags => {
      const { pack, idx } = await gitPack(flags);
      expect((await packIndex(pack, none, noWait)).equals(idx)).toBe(true);
    },
  );

  it("refuses a pack whose checksum does not match (it names the stored pack)", async () => {
    const { pack } = buildPack([plain(TYPE.blob, Buffer.from("a"))]);
    pack[pack.length - 1] ^= 1;
    await expect(packIndex(pack, none, noWait)).rejects.toThrow(
      new UnindexablePack("its checksum does not match its contents"),
    );
  });

  // A delta naming itself was resolved again at every level down to the depth bound, holding
  // its bytes at each: a 969-byte pack took 1.13 GB.
  it("refuses a delta at distance 0, its own base", async () => {
    const { pack, offsets } = buildPack([
      plain(TYPE.blob, Buffer.from("a")),
      copyingDelta(1, 1, 1, 0),
    ]);
    await expect(packIndex(pack, none, noWait)).rejects.toThrow(
      new UnindexablePack(`the delta at offset ${offsets[1]} has no base`),
    );
  });

  // Stored newest first, a chain of ref-deltas resolves one delta per pass: each pass asked the
  // repository again for every base still unknown (N²/2 lookups of a few-KB pack).
  it("asks the repository for a base outside the pack at most once", async () => {
    const n = 30;
    const objects = [Buffer.from("a")];
    for (let i = 1; i <= n; i++) objects.push(Buffer.concat([objects[i - 1], Buffer.from("x")]));
    const deltas = objects.slice(1).map((object, i) => {
      const baseSize = objects[i].length;
      // copy the whole base (offset 0, one size byte), then insert "x"
      const data = Buffer.concat([
        deltaVarint(baseSize),
        deltaVarint(object.length),
        Buffer.from([0x80 | 0x10, baseSize, 0x01, 0x78]),
      ]);
      return {
        type: TYPE.refDelta,
        size: data.length,
        deflated: deflateSync(data),
        ref: oidOf("blob", objects[i]),
      };
    });
    const { pack } = buildPack([...deltas.reverse(), plain(TYPE.blob, objects[0])]);
    let asked = 0;
    const external = () => {
      asked += 1;
      return Promise.resolve(undefined);
    };
    await expect(packIndex(pack, external, noWait)).resolves.toBeInstanceOf(Buffer);
    expect(asked).toBeLessThanOrEqual(n);
  });

  it("refuses a delta whose base is neither in the pack nor in the cache", async () => {
    const { pack } = buildPack([plain(TYPE.blob, Buffer.from("a")), copyingDelta(5, 1, 1, 1000)]);
    await expect(packIndex(pack, none, noWait)).rejects.toThrow(UnindexablePack);
  });
});

/** The .idx git's index-pack writes for `pack`. */
async function gitIndex(pack: Buffer, name: string): Promise<Buffer> {
  const file = join(dir, `${name}.pack`);
  await writeFile(file, pack);
  execFileSync("git", ["index-pack", "--index-version=2", file]);
  return readFile(file.replace(/\.pack$/, ".idx"));
}

// Each delta used to be resolved by walking down to its base, with a small cache: a delta whose
// base was not the last object resolved (nor small enough to be cached) re-inflated and
// re-applied its whole chain, K²/4 applies for K deltas. Counts, not time: K deltas cost one
// apply each, and every object is inflated at most twice (its header pass, its resolution).
describe("packIndex work", () => {
  const K = 16;
  // Over a quarter of the old 8 MiB base cache, so no result was cached.
  const SIZE = 3 * 1024 * 1024;

  /** Two blobs, then results[i] = results[i - 2] + "<i>" for i in 2..K+1. */
  function twoChains() {
    const results = [Buffer.alloc(SIZE, 0x61), Buffer.alloc(SIZE, 0x62)];
    const deltas: Buffer[] = [];
    for (let i = 2; i < K + 2; i++) {
      const extra = Buffer.from(`${i}`);
      deltas.push(appendingDelta(results[i - 2].length, extra));
      results.push(Buffer.concat([results[i - 2], extra]));
    }
    return { results, deltas };
  }

  it("resolves K ofs-deltas, each based two back, with K applies", async () => {
    const { results, deltas } = twoChains();
    const { pack } = buildPack([
      plain(TYPE.blob, results[0]),
      plain(TYPE.blob, results[1]),
      ...deltas.map((data, i) => ({
        type: TYPE.ofsDelta,
        size: data.length,
        deflated: deflateSync(data),
        ofsTo: i,
      })),
    ]);
    const work = { inflates: 0, applies: 0 };
    const idx = await packIndex(pack, none, noWait, work);
    expect(idx.equals(await gitIndex(pack, "two-back"))).toBe(true);
    expect(work.applies).toBeLessThanOrEqual(K);
    expect(work.inflates).toBeLessThanOrEqual(2 * (K + 2));
  }, 60_000);

  it("resolves two chains of K ref-deltas stored newest first with K applies", async () => {
    const { results, deltas } = twoChains();
    const refDeltas = deltas.map((data, i) => ({
      type: TYPE.refDelta,
      size: data.length,
      deflated: deflateSync(data),
      ref: oidOf("blob", results[i]),
    }));
    const { pack } = buildPack([
      ...refDeltas.reverse(),
      plain(TYPE.blob, results[0]),
      plain(TYPE.blob, results[1]),
    ]);
    const work = { inflates: 0, applies: 0 };
    const idx = await packIndex(pack, none, noWait, work);
    expect(idx.equals(await gitIndex(pack, "reversed"))).toBe(true);
    expect(work.applies).toBeLessThanOrEqual(K);
    expect(work.inflates).toBeLessThanOrEqual(2 * (K + 2));
  }, 60_000);
});

describe("applyDelta", () => {
  const base = Buffer.from("0123456789");
  const delta = (...ops: number[]) =>
    Buffer.concat([deltaVarint(base.length), deltaVarint(5), Buffer.from(ops)]);

  it("copies from the base and inserts literal bytes", () => {
    // copy 3 bytes at offset 2, then insert "ab"
    const out = applyDelta(delta(0x80 | 0x01 | 0x10, 2, 3, 2, 0x61, 0x62), base);
    expect(out.toString()).toBe("234ab");
  });

  it("refuses a copy past the base, or a result of another size than declared", () => {
    expect(() => applyDelta(delta(0x80 | 0x01 | 0x10, 9, 5), base)).toThrow(UnindexablePack);
    expect(() => applyDelta(delta(2, 0x61, 0x62), base)).toThrow(UnindexablePack);
  });
});
