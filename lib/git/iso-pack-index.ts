// The index (.idx, version 2) of a fetched pack, built from the one buffer the pack is in.
// isomorphic-git's own indexing (GitPackIndex.fromPack) inflates every object with pako on the
// event loop and keeps copies of each (its output, the object wrapped for hashing, a 32 MiB
// cache of resolved objects): about five bytes of memory per byte of pack. Here objects are
// inflated by zlib on libuv's thread pool (the event loop only reads headers, hashes and applies
// deltas), each object's bytes are dropped once hashed, the entries live in typed arrays
// (iso-pack-entries.ts), and deltas are resolved once each, depth first from their bases
// (iso-pack-deltas.ts). The pack was scanned first (pack-scan.ts), so every size here is within
// the content limits.
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { type ExternalBase, resolveDeltas } from "./iso-pack-deltas";
import {
  type IndexWork,
  type PackEntries,
  UnindexablePack,
  digest,
  readEntries,
  sortByIds,
} from "./iso-pack-entries";

export { UnindexablePack, type IndexWork } from "./iso-pack-entries";
export { applyDelta, type ExternalBase, type IndexedObject } from "./iso-pack-deltas";

/** idx v2 stores offsets below 2^31 in its main table; isomorphic-git reads no other. */
const MAX_OFFSET = 2 ** 31;

/**
 * The .idx of `pack` (a whole version 2 pack). `yieldNow` is awaited between objects (the
 * fetch's deadline check); `work` counts what indexing inflated and applied.
 */
export async function packIndex(
  pack: Buffer,
  external: ExternalBase,
  yieldNow: () => Promise<void>,
  work: IndexWork = { inflates: 0, applies: 0, visits: 0 },
): Promise<Buffer> {
  if (pack.length > MAX_OFFSET) throw new UnindexablePack("it is 2 GiB or more");
  // The pack is stored under this checksum's name: a pack whose trailer lies could replace
  // another pack of the cache under its index.
  const sum = await digest(createHash("sha1"), pack.subarray(0, pack.length - 20), yieldNow);
  if (!sum.equals(pack.subarray(pack.length - 20)))
    throw new UnindexablePack("its checksum does not match its contents");
  const entries = await readEntries(pack, yieldNow, work);
  await resolveDeltas(pack, entries, external, yieldNow, work);
  return idxFile(pack, entries);
}

/** The idx v2 file: fan-out, sorted ids, CRC-32s, offsets, the pack's checksum, its own. */
function idxFile(pack: Buffer, entries: PackEntries): Buffer {
  const { count: n, ids, offsets } = entries;
  const sorted = new Uint32Array(n);
  for (let i = 0; i < n; i++) sorted[i] = i;
  sortByIds(sorted, n, ids, i => i * 20);
  const idx = Buffer.alloc(8 + 256 * 4 + n * 28 + 40);
  idx.writeUInt32BE(0xff744f63, 0);
  idx.writeUInt32BE(2, 4);
  const fanout = new Uint32Array(256);
  for (let i = 0; i < n; i++) fanout[ids[i * 20]]++;
  for (let i = 0, total = 0; i < 256; i++) idx.writeUInt32BE((total += fanout[i]), 8 + i * 4);
  const idsAt = 8 + 256 * 4;
  const crcs = idsAt + n * 20;
  const offsetsAt = crcs + n * 4;
  sorted.forEach((e, i) => {
    ids.copy(idx, idsAt + i * 20, e * 20, e * 20 + 20);
    idx.writeUInt32BE(crc32(pack.subarray(offsets[e], offsets[e + 1])), crcs + i * 4);
    idx.writeUInt32BE(offsets[e], offsetsAt + i * 4);
  });
  pack.copy(idx, offsetsAt + n * 4, pack.length - 20);
  createHash("sha1")
    .update(idx.subarray(0, idx.length - 20))
    .digest()
    .copy(idx, idx.length - 20);
  return idx;
}
