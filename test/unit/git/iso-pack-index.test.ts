import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UnindexablePack, applyDelta, packIndex } from "../../../lib/git/iso-pack-index";
import { ENTRY_BYTES, readEntries } from "../../../lib/git/iso-pack-entries";
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
}, 60_000);
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
  const K = 12;
  // Over a quarter of the old 8 MiB base cache, so no result was cached.
  const SIZE = 2.25 * 1024 * 1024;

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
    const work = { inflates: 0, applies: 0, visits: 0 };
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
    const work = { inflates: 0, applies: 0, visits: 0 };
    const idx = await packIndex(pack, none, noWait, work);
    expect(idx.equals(await gitIndex(pack, "reversed"))).toBe(true);
    expect(work.applies).toBeLessThanOrEqual(K);
    expect(work.inflates).toBeLessThanOrEqual(2 * (K + 2));
  }, 60_000);
});

// Bases waiting for more children are held up to 32 MiB; past that the ones nearest the root are
// dropped and derived again when their next child comes. A comb (each object of a chain has
// one more delta, a leaf, after the rest of the chain) holds every object of the chain.
// A pack may repeat an object: each copy looked over every ref-delta based on its id (all
// resolved by the first copy), M² looks for M copies and M deltas.
it("looks at each ref-delta about once however often its base repeats", async () => {
  const M = 300;
  const base = Buffer.from("same");
  const data = appendingDelta(base.length, Buffer.from("x"));
  const delta = { type: TYPE.refDelta, size: data.length, deflated: deflateSync(data) };
  const { pack } = buildPack([
    ...Array.from({ length: M }, () => plain(TYPE.blob, base)),
    ...Array.from({ length: M }, () => ({ ...delta, ref: oidOf("blob", base) })),
  ]);
  const work = { inflates: 0, applies: 0, visits: 0 };
  await packIndex(pack, none, noWait, work);
  expect(work.visits).toBeLessThanOrEqual(4 * M);
}, 30_000);

describe("packIndex bases held", () => {
  const SIZE = 12 * 1024 * 1024;
  const ofsDelta = (data: Buffer, ofsTo: number) => ({
    type: TYPE.ofsDelta,
    size: data.length,
    deflated: deflateSync(data),
    ofsTo,
  });

  /** chain[k] = chain[k - 1] + "<k>" for k in 1..depth; leaf k copies one byte of chain[k]. */
  function comb(depth: number) {
    const chain = [Buffer.alloc(SIZE, 0x63)];
    const objects = [plain(TYPE.blob, chain[0])];
    for (let k = 1; k <= depth; k++) {
      const extra = Buffer.from(`${k}`);
      objects.push(ofsDelta(appendingDelta(chain[k - 1].length, extra), k - 1));
      chain.push(Buffer.concat([chain[k - 1], extra]));
    }
    for (let k = 0; k <= depth; k++) {
      // copy 1 byte at offset 0, then insert the leaf's number
      const leaf = Buffer.concat([
        deltaVarint(chain[k].length),
        deltaVarint(2),
        Buffer.from([0x80 | 0x10, 1, 1, 0x30 + k]),
      ]);
      objects.push(ofsDelta(leaf, k));
    }
    return buildPack(objects).pack;
  }

  it("drops the bases nearest the root past the bound and derives them again", async () => {
    const pack = comb(3);
    const work = { inflates: 0, applies: 0, visits: 0 };
    const idx = await packIndex(pack, none, noWait, work);
    expect(idx.equals(await gitIndex(pack, "comb"))).toBe(true);
    // 7 deltas, and the chain's first two objects derived again once each.
    expect(work.applies).toBeLessThanOrEqual(7 + 1);
  }, 60_000);

  it("refuses a pack whose bases would be derived again more than resolved once", async () => {
    await expect(packIndex(comb(6), none, noWait)).rejects.toThrow(
      new UnindexablePack(
        `its delta bases do not fit in ${32 * 1024 * 1024} bytes and resolving them again ` +
          "would cost more than resolving them once",
      ),
    );
  }, 60_000);
});

describe("packIndex refuses", () => {
  const refDelta = (base: Buffer, extra: string) => {
    const data = appendingDelta(base.length, Buffer.from(extra));
    return { type: TYPE.refDelta, size: data.length, deflated: deflateSync(data) };
  };

  it("a chain of deltas deeper than git makes (4095)", async () => {
    const objects = [plain(TYPE.blob, Buffer.from("a"))];
    for (let k = 1; k <= 4096; k++) {
      const data = appendingDelta(k, Buffer.from("a"));
      objects.push({
        type: TYPE.ofsDelta,
        size: data.length,
        deflated: deflateSync(data),
        ofsTo: k - 1,
      } as never);
    }
    const { pack, offsets } = buildPack(objects);
    await expect(packIndex(pack, none, noWait)).rejects.toThrow(
      new UnindexablePack(`the delta at offset ${offsets[4096]} is in a chain too deep`),
    );
  }, 60_000);

  it("a ref-delta based on its own result, and two based on each other's", async () => {
    const ref = (data: number[], base: string) => {
      const delta = Buffer.from(data);
      return {
        type: TYPE.refDelta,
        size: delta.length,
        deflated: deflateSync(delta),
        ref: oidOf("blob", Buffer.from(base)),
      };
    };
    const { pack, offsets } = buildPack([
      plain(TYPE.blob, Buffer.from("z")),
      // copies both bytes of its base: "ab" from "ab"
      ref([2, 2, 0x80 | 0x10, 2], "ab"),
      // copy the base's first byte, insert one: "cd" from "ce", and "ce" from "cd"
      ref([2, 2, 0x80 | 0x10, 1, 1, 0x64], "ce"),
      ref([2, 2, 0x80 | 0x10, 1, 1, 0x65], "cd"),
    ]);
    const asked: string[] = [];
    const external = (oid: string) => {
      asked.push(oid);
      return Promise.resolve(undefined);
    };
    await expect(packIndex(pack, external, noWait)).rejects.toThrow(
      new UnindexablePack(`the delta at offset ${offsets[1]} has no base`),
    );
    expect(asked).toHaveLength(3);
  });

  it("nothing of a ref-delta whose base is outside the pack, asked once", async () => {
    const base = Buffer.from("outside");
    const asked: string[] = [];
    const external = (oid: string) => {
      asked.push(oid);
      return Promise.resolve({ type: "blob", object: base });
    };
    const { pack } = buildPack([
      { ...refDelta(base, "1"), ref: oidOf("blob", base) },
      { ...refDelta(base, "2"), ref: oidOf("blob", base) },
    ]);
    const idx = await packIndex(pack, external, noWait);
    expect(asked).toEqual([oidOf("blob", base)]);
    for (const made of ["outside1", "outside2"])
      expect(idx.includes(Buffer.from(oidOf("blob", Buffer.from(made)), "hex"))).toBe(true);
  });
});

// One JS object per entry, with hex-string ids, took about 200 bytes of heap per object: 100 MB
// at the 500,000-object cap. The typed arrays take ENTRY_BYTES per object.
describe("pack entries", () => {
  it("take at most 48 bytes per object", async () => {
    const count = 400;
    const blobs = Array.from({ length: count / 2 }, (_, i) =>
      plain(TYPE.blob, Buffer.from(`${i}`)),
    );
    const deltas = Array.from({ length: count / 2 }, (_, i) => {
      const data = appendingDelta(`${i}`.length, Buffer.from("x"));
      return { type: TYPE.ofsDelta, size: data.length, deflated: deflateSync(data), ofsTo: i };
    });
    const { pack } = buildPack([...blobs, ...deltas]);
    const entries = await readEntries(pack, noWait, { inflates: 0, applies: 0, visits: 0 });
    expect(ENTRY_BYTES).toBeLessThanOrEqual(48);
    expect(entries.byteLength).toBeLessThanOrEqual(count * ENTRY_BYTES + 8);
  }, 30_000);

  it("are not allocated for more objects than the pack's bytes can hold", async () => {
    const { pack } = buildPack([plain(TYPE.blob, Buffer.from("a"))]);
    pack.writeUInt32BE(2 ** 32 - 1, 8);
    await expect(readEntries(pack, noWait, { inflates: 0, applies: 0, visits: 0 })).rejects.toThrow(
      new UnindexablePack(`it claims ${2 ** 32 - 1} objects in ${pack.length} bytes`),
    );
  });
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
