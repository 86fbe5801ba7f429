import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { scanPack } from "../../../lib/git/pack-scan";
import {
  TYPE,
  buildPack,
  copyingDelta,
  plain,
  uploadPackAnswer,
  zeros,
} from "../../support/crafted-pack";

// The scan of a fetched pack's headers (pack-scan.ts): refused on what a header claims, before
// inflating past a limit; a real pack of git's, deltas and all, passes whole.
const MiB = 1024 * 1024;
const LIMITS = { maxObjectBytes: MiB, maxInflatedBytes: 4 * MiB, maxPackObjects: 100 };

describe("scanPack", () => {
  // The index keeps about 200 bytes per object: 2.3 million empty blobs, a 21 MB pack, took
  // 430 MB of heap to index.
  it("refuses a pack of more objects than the limit on its header", async () => {
    const { pack } = buildPack(
      Array.from({ length: 101 }, () => plain(TYPE.blob, Buffer.alloc(0))),
    );
    expect(await scanPack(pack, LIMITS)).toMatchObject({
      ok: false,
      limit: "maxPackObjects",
      why: "it holds 101 objects",
      scan: { objects: 0 },
    });
    const within = buildPack(Array.from({ length: 100 }, () => plain(TYPE.blob, Buffer.alloc(0))));
    expect(await scanPack(within.pack, LIMITS)).toMatchObject({ ok: true, scan: { objects: 100 } });
  });

  it("refuses a blob claiming 64 MiB on its header, inflating nothing", async () => {
    const { pack } = buildPack([zeros(64 * MiB)]);
    expect(pack.length).toBeLessThan(100_000);
    const result = await scanPack(pack, LIMITS);
    expect(result).toMatchObject({
      ok: false,
      limit: "maxObjectBytes",
      why: "the object at offset 12 is 67108864 bytes inflated",
      scan: { objects: 1, inflated: 0 },
    });
  });

  it("refuses a small delta whose result is 64 MiB after inflating only the delta", async () => {
    // 64 KiB of zeros, copied 1024 times: a few KiB that make 64 MiB.
    const base = zeros(64 * 1024);
    const first = buildPack([base]);
    const baseEnd = first.pack.length - 20;
    const { pack } = buildPack([base, copyingDelta(64 * 1024, 64 * 1024, 1024, baseEnd - 12)]);
    expect(pack.length).toBeLessThan(10_000);
    const result = await scanPack(pack, LIMITS);
    expect(result).toMatchObject({
      ok: false,
      limit: "maxObjectBytes",
      why: `the delta at offset ${baseEnd} makes an object of 67108864 bytes`,
    });
    // The base and the delta's own 4 KiB: never the result.
    expect(result.scan.inflated).toBeLessThan(64 * 1024 + 5000);
  });

  it("refuses objects that are each small but too many bytes in all", async () => {
    const { pack } = buildPack(Array.from({ length: 5 }, () => zeros(MiB)));
    const result = await scanPack(pack, LIMITS);
    expect(result).toMatchObject({
      ok: false,
      limit: "maxInflatedBytes",
      why: `its objects are more than ${5 * MiB} bytes inflated`,
      scan: { objects: 5, inflated: 4 * MiB },
    });
  });

  it("refuses an object that inflates past the size its header claims", async () => {
    const { pack } = buildPack([{ ...zeros(MiB), size: 10 }]);
    const result = await scanPack(pack, LIMITS);
    expect(result).toMatchObject({
      ok: false,
      limit: "malformed",
      why: "the object at offset 12 does not inflate to its size of 10 bytes",
    });
    expect(result.scan.inflated).toBe(0);
  });

  it("refuses a pack that ends before its objects do", async () => {
    const { pack } = buildPack([plain(TYPE.blob, Buffer.from("a")), zeros(100)]);
    expect(await scanPack(pack.subarray(0, 30), LIMITS)).toMatchObject({
      ok: false,
      limit: "malformed",
    });
    expect(await scanPack(Buffer.from("PACK"), LIMITS)).toMatchObject({ ok: false });
  });

  it("passes a pack git wrote, with deltas, whole", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pack-scan-"));
    try {
      const git = (...args: string[]) =>
        execFileSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...args]);
      git("init", "-q");
      const text = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join("");
      for (let i = 0; i < 5; i++) {
        execFileSync("sh", ["-c", `printf '%s' "$1" > f.txt`, "sh", `${text}change ${i}\n`], {
          cwd: dir,
        });
        git("add", ".");
        git("commit", "-qm", `c${i}`);
      }
      // 11 objects and 4 deltas, by reference to their base's id, then by offset.
      for (const flags of [[], ["--delta-base-offset"]]) {
        const pack = execFileSync(
          "git",
          ["-C", dir, "pack-objects", "--stdout", "--revs", "-q", ...flags],
          { input: "HEAD\n" },
        );
        const result = await scanPack(pack, LIMITS);
        expect(result).toMatchObject({ ok: true, scan: { objects: 15 } });
        // Every delta's result is declared on top of its own data.
        expect(result.scan.declared).toBeGreaterThan(result.scan.inflated);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
