import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GitContentStore } from "../../../lib/git";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import type { GitNetwork } from "../../../lib/git/network";
import {
  TYPE,
  buildPack,
  copyingDelta,
  emptyCommit,
  plain,
  startPackServer,
  zeros,
  type PackObject,
} from "../../support/crafted-pack";
import type { HostileServer } from "../../support/hostile-servers";
import { track } from "./helpers";

// A git server answering a fetch with a pack bomb: a few KiB that inflate to 64 MiB. The
// isomorphic-git client refuses the fetch, ContentTooLarge naming the setting, on what the
// pack's headers claim: its scan never inflated the bomb (isomorphic-git would have, whole).
jest.setTimeout(60_000);

const MiB = 1024 * 1024;
const network: GitNetwork = {
  policy: { http: "loopback", file: false },
  timeouts: { connectMs: 2_000, idleMs: 5_000, totalMs: 30_000 },
  limits: { ...DEFAULT_CONTENT_LIMITS, maxObjectBytes: MiB, maxInflatedBytes: 8 * MiB },
};

const servers: HostileServer[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()));
  await Promise.all(dirs.map(d => rm(d, { recursive: true, force: true })));
});

/** A store of the repository on a server whose every fetch gets `extra` after a commit. */
async function storeServing(extra: () => PackObject[]) {
  const { oid, objects } = emptyCommit();
  const { pack } = buildPack([...objects, ...extra()]);
  const server = await startPackServer(oid, pack);
  servers.push(server);
  const cacheRoot = await mkdtemp(join(tmpdir(), "pack-bomb-"));
  dirs.push(cacheRoot);
  const store = track(
    new GitContentStore(
      { url: `${server.url}/repo.git` },
      { cacheRoot, client: "isomorphic", network },
    ),
  );
  return { oid, store, packBytes: pack.length };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => new Error("expected a failure"),
    (e: Error) => e,
  );

describe("the isomorphic client fetching a pack bomb", () => {
  it("fetches the same server's pack when it is harmless", async () => {
    const { oid, store } = await storeServing(() => [plain(TYPE.blob, Buffer.from("a: 1\n"))]);
    await expect(store.open()).resolves.toBe(oid);
  });

  it("refuses a blob of 64 MiB of zeros, deflated to ~64 KiB, without inflating it", async () => {
    const { store, packBytes } = await storeServing(() => [zeros(64 * MiB)]);
    expect(packBytes).toBeLessThan(100_000);
    const err = await failure(store.open());
    expect(err).toMatchObject({ code: "ContentTooLarge" });
    expect(err.message).toContain(
      "over the per-object limit of 1048576 bytes inflated (PORCH_PEPR_GIT_MAX_OBJECT_BYTES): the object at offset",
    );
    expect(err.message).toContain("is 67108864 bytes inflated");
    // The scan inflated the commit and the tree, and refused the blob on its header.
    expect((err as unknown as { scan: { inflated: number } }).scan.inflated).toBeLessThan(1000);
    // Refused, not half taken: the next attempt is refused the same way.
    await expect(store.open()).rejects.toMatchObject({ code: "ContentTooLarge" });
  });

  it("refuses a delta of a few KiB that makes 64 MiB, inflating only the delta", async () => {
    // 64 KiB of zeros, then a delta right after it copying them 1024 times.
    const base = zeros(64 * 1024);
    const baseEntry = buildPack([base]).pack.length - 32;
    const { store, packBytes } = await storeServing(() => [
      base,
      copyingDelta(64 * 1024, 64 * 1024, 1024, baseEntry),
    ]);
    expect(packBytes).toBeLessThan(10_000);
    const err = await failure(store.open());
    expect(err).toMatchObject({ code: "ContentTooLarge" });
    expect(err.message).toContain(
      "over the per-object limit of 1048576 bytes inflated (PORCH_PEPR_GIT_MAX_OBJECT_BYTES): the delta at offset",
    );
    expect(err.message).toContain("makes an object of 67108864 bytes");
    expect((err as unknown as { scan: { inflated: number } }).scan.inflated).toBeLessThan(
      64 * 1024 + 5000,
    );
  });

  it("refuses a pack whose objects are over the per-fetch inflated limit in all", async () => {
    const { store } = await storeServing(() => Array.from({ length: 9 }, () => zeros(MiB)));
    const err = await failure(store.open());
    expect(err).toMatchObject({ code: "ContentTooLarge" });
    expect(err.message).toContain(
      "over the per-fetch limit of 8388608 bytes inflated (PORCH_PEPR_GIT_MAX_INFLATED_BYTES)",
    );
  });
});
