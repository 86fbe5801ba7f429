// The isomorphic-git client's pack cache stays within its bound however many packs fetches
// stored: measured as the files of the packs isomorphic-git's own cache map holds.
import { randomBytes } from "node:crypto";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IsoGitClient } from "../../../lib/git/iso-client";
import { PackBudget } from "../../../lib/git/iso-pack-cache";
import { git, startFixture, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

/** The bytes of the packs (and indexes) isomorphic-git's cache map holds, read from disk. */
function heldBytes(client: IsoGitClient): { bytes: number; packs: number } {
  const cache = (client as unknown as { cache: object }).cache;
  let bytes = 0;
  let packs = 0;
  for (const key of Object.getOwnPropertySymbols(cache)) {
    const value = (cache as Record<symbol, unknown>)[key];
    if (!(value instanceof Map)) continue;
    for (const idx of value.keys() as IterableIterator<string>) {
      packs++;
      bytes += statSync(idx).size + statSync(idx.replace(/\.idx$/, ".pack")).size;
    }
  }
  return { bytes, packs };
}

describe("IsoGitClient pack cache", () => {
  it("holds packs up to its bound, least recently used dropped and read again from disk", async () => {
    const bound = 100_000;
    const url = await fx.repo();
    const work = await workClone(fx, url);
    const gitdir = await fx.cacheRoot();
    const client = new IsoGitClient({ gitdir, url, branch: "main", packCacheBytes: bound });
    await client.init();
    // Six fetches, each storing a pack of about 30 KB (random bytes do not compress).
    const blobs = new Map<string, Buffer>();
    for (let i = 0; i < 6; i++) {
      const content = randomBytes(30_000);
      await writeFiles(work, { [`big${i}.bin`]: content });
      await git(work, "add", ".");
      await git(work, "commit", "-qm", `big ${i}`);
      await git(work, "push", "-q", "origin", "HEAD:main");
      blobs.set((await git(work, "rev-parse", `HEAD:big${i}.bin`)).trim(), content);
      await client.fetch();
    }
    let most = 0;
    for (let round = 0; round < 2; round++) {
      for (const [oid, content] of blobs) {
        expect((await client.readBlobs([oid])).get(oid)).toEqual(content);
        const held = heldBytes(client);
        most = Math.max(most, held.bytes);
        expect(held.bytes).toBeLessThanOrEqual(bound);
      }
    }
    // Reading every blob loaded every pack at some point: more than the bound in all.
    expect(blobs.size * 30_000).toBeGreaterThan(bound);
    expect(most).toBeGreaterThan(30_000);
  });
});

describe("PackBudget", () => {
  it("is shared by the caches of all clients and frees a closed cache's packs", async () => {
    const dir = await fx.cacheRoot();
    const pack = (name: string) => {
      writeFileSync(join(dir, `${name}.pack`), Buffer.alloc(1000));
      writeFileSync(join(dir, `${name}.idx`), Buffer.alloc(100));
      return join(dir, `${name}.idx`);
    };
    const budget = new PackBudget(3200); // two packs of 1000 + 6 x 100 bytes
    const [one, two] = [budget.newCache(), budget.newCache()];
    one.set(pack("a"), "a");
    two.set(pack("b"), "b");
    expect(one.get(pack("a"))).toBe("a"); // a is now the most recently used
    two.set(pack("c"), "c");
    expect([...one.keys(), ...two.keys()].sort()).toEqual([pack("a"), pack("c")]);
    expect(budget.bytes).toBe(3200);
    one.clear();
    expect({ bytes: budget.bytes, count: budget.count }).toEqual({ bytes: 1600, count: 1 });
  });
});
