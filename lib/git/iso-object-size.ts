// The inflated size of a stored object, read from its header without inflating its body.
// isomorphic-git inflates an object whole (pako, on the event loop) before anyone sees its size,
// so a 16 MiB blob (the per-object limit) was inflated to be refused by the 1 MiB per-file limit;
// the isomorphic-git client asks this first and reads only objects within their type's limit.
// A packed object's header holds its size; a delta's is the second number at the start of its
// data, inflated only that far. Every pack was scanned when fetched (pack-scan.ts: each object
// inflates to exactly the size it declares), and isomorphic-git checks it again as it reads.
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { constants, createInflate } from "node:zlib";
import { OFS_DELTA, REF_DELTA, deltaResultSize, varint } from "./pack-scan";

/** Deflated bytes read for a loose object's "<type> <size>\0" or a delta's two sizes. */
const HEAD_IN = 1024;
/** Inflated bytes that hold either (a type, a space, a size of at most 20 digits, a NUL). */
const HEAD_OUT = 64;
/** The largest packed object header: a type and 64-bit size, then a ref-delta's base id. */
const PACK_HEADER = 10 + 20;

const IDX_MAGIC = 0xff744f63;
const IDX_FANOUT = 8;
const IDX_IDS = IDX_FANOUT + 256 * 4;

/** What is read of an index isomorphic-git loaded (its GitPackIndex): offsets, and its pack. */
interface LoadedIndex {
  offsets: Map<string, number>;
  pack?: Promise<Buffer | null> | Buffer | null;
}

const isLoadedIndex = (value: unknown): value is LoadedIndex =>
  typeof value === "object" && value !== null && (value as LoadedIndex).offsets instanceof Map;

/**
 * The size of object `oid` as stored in `gitdir` (a delta: the object it makes), or undefined
 * when it is not there (isomorphic-git then says so itself). `loaded` is isomorphic-git's map of
 * the indexes it loaded (.idx path → index): an object in one is found without reading a file.
 */
export async function storedObjectSize(
  gitdir: string,
  oid: string,
  loaded: Map<string, unknown> = new Map(),
): Promise<number | undefined> {
  if (!/^[0-9a-f]{40}$/.test(oid)) return undefined;
  for (const [idx, value] of loaded) {
    const index: unknown = await Promise.resolve(value).catch(() => undefined);
    if (!isLoadedIndex(index)) continue;
    const offset = index.offsets.get(oid);
    if (offset === undefined) continue;
    const pack = await Promise.resolve(index.pack).catch(() => undefined);
    const head = Buffer.isBuffer(pack)
      ? pack.subarray(offset, offset + PACK_HEADER + HEAD_IN)
      : await readAt(idx.replace(/\.idx$/, ".pack"), offset, PACK_HEADER + HEAD_IN);
    return head === undefined ? undefined : packedSize(head);
  }
  const loose = await readAt(join(gitdir, "objects", oid.slice(0, 2), oid.slice(2)), 0, HEAD_IN);
  if (loose !== undefined) return looseSize(await inflateHead(loose));
  const packs = join(gitdir, "objects", "pack");
  const names = await readdir(packs).catch(() => [] as string[]);
  for (const name of names.filter(n => n.endsWith(".idx"))) {
    const offset = await offsetIn(join(packs, name), oid);
    if (offset === undefined) continue;
    const pack = join(packs, name.replace(/\.idx$/, ".pack"));
    const head = await readAt(pack, offset, PACK_HEADER + HEAD_IN);
    return head === undefined ? undefined : packedSize(head);
  }
  return undefined;
}

/** `length` bytes of a file from `position` (fewer at its end); undefined if it is not there. */
async function readAt(path: string, position: number, length: number) {
  const file = await open(path).catch(() => undefined);
  if (file === undefined) return undefined;
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read({ buffer, position, length });
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** Where `oid` starts in the pack of a version 2 index, by its fan-out and sorted ids. */
async function offsetIn(idx: string, oid: string): Promise<number | undefined> {
  const head = await readAt(idx, 0, IDX_IDS);
  if (head?.length !== IDX_IDS || head.readUInt32BE(0) !== IDX_MAGIC || head.readUInt32BE(4) !== 2)
    return undefined;
  const first = Number.parseInt(oid.slice(0, 2), 16);
  const count = head.readUInt32BE(IDX_FANOUT + 255 * 4);
  const from = first === 0 ? 0 : head.readUInt32BE(IDX_FANOUT + (first - 1) * 4);
  const to = head.readUInt32BE(IDX_FANOUT + first * 4);
  if (to <= from || to > count) return undefined;
  // Only the ids that share its first byte: a 256th of the index.
  const ids = await readAt(idx, IDX_IDS + from * 20, (to - from) * 20);
  const want = Buffer.from(oid, "hex");
  let lo = 0;
  let hi = Math.floor((ids?.length ?? 0) / 20);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const order = ids!.compare(want, 0, 20, mid * 20, mid * 20 + 20);
    if (order === 0) return offsetAt(idx, count, from + mid);
    if (order > 0) lo = mid + 1;
    else hi = mid;
  }
  return undefined;
}

async function offsetAt(idx: string, count: number, i: number): Promise<number | undefined> {
  const small = await readAt(idx, IDX_IDS + count * 24 + i * 4, 4);
  if (small?.length !== 4) return undefined;
  const offset = small.readUInt32BE(0);
  if (!(offset & 0x80000000)) return offset;
  // Packs of 2 GiB or more keep their offsets in a table of 8-byte ones after the small ones.
  const large = await readAt(idx, IDX_IDS + count * 28 + (offset & 0x7fffffff) * 8, 8);
  return large?.length === 8 ? Number(large.readBigUInt64BE(0)) : undefined;
}

/** A loose object inflates to "<type> <size>\0<body>". */
function looseSize(head: Buffer): number | undefined {
  const m = /^[a-z]+ ([0-9]{1,16})\0/.exec(head.toString("latin1"));
  return m ? Number(m[1]) : undefined;
}

/** A packed object's size, or for a delta the size of the object it makes. */
async function packedSize(head: Buffer): Promise<number | undefined> {
  try {
    const type = (head[0] >> 4) & 7;
    const header = varint(head, 1, 4, head[0]);
    let pos = header.next;
    if (type === OFS_DELTA) {
      while (pos < head.length && head[pos] & 0x80) pos++;
      pos++;
    } else if (type === REF_DELTA) pos += 20;
    else return header.value;
    return deltaResultSize(await inflateHead(head.subarray(pos)), pos);
  } catch {
    return undefined; // cut short: isomorphic-git reports the object as it reads it
  }
}

/**
 * The first HEAD_OUT bytes (or fewer) `deflated` inflates to. A stream is ended as soon as they
 * are out: a prefix of highly compressed data could otherwise make a megabyte.
 */
function inflateHead(deflated: Buffer): Promise<Buffer> {
  return new Promise(resolve => {
    const z = createInflate({ chunkSize: HEAD_OUT, finishFlush: constants.Z_SYNC_FLUSH });
    const out: Buffer[] = [];
    let got = 0;
    const done = () => {
      z.destroy();
      resolve(Buffer.concat(out).subarray(0, HEAD_OUT));
    };
    z.on("data", (chunk: Buffer) => {
      out.push(chunk);
      got += chunk.length;
      if (got >= HEAD_OUT) done();
    });
    z.on("end", done);
    // Not zlib data: no header to read, isomorphic-git reports the object as it reads it.
    z.on("error", done);
    z.end(deflated);
  });
}
