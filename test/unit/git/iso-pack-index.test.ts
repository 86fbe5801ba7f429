import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UnindexablePack, applyDelta, packIndex } from "../../../lib/git/iso-pack-index";
import { TYPE, buildPack, copyingDelta, deltaVarint, plain } from "../../support/crafted-pack";

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

  it("refuses a delta whose base is neither in the pack nor in the cache", async () => {
    const { pack } = buildPack([plain(TYPE.blob, Buffer.from("a")), copyingDelta(5, 1, 1, 1000)]);
    await expect(packIndex(pack, none, noWait)).rejects.toThrow(UnindexablePack);
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
