// The index (.idx, version 2) of a fetched pack, built from the one buffer the pack is in.
// isomorphic-git's own indexing (GitPackIndex.fromPack) inflates every object with pako on the
// event loop and keeps copies of each (its output, the object wrapped for hashing, a 32 MiB
// cache of resolved objects): about five bytes of memory per byte of pack. Here objects are
// inflated by zlib on libuv's thread pool (the event loop only reads headers, hashes and applies
// deltas), each object's bytes are dropped once hashed, and a delta's base is inflated again
// when needed, with a small bounded cache for chains. The pack was scanned first (pack-scan.ts),
// so every size here is within the content limits.
import { createHash, type Hash } from "node:crypto";
import { crc32 } from "node:zlib";
import { inflateObject } from "./pack-scan";

const TYPE_NAMES: Record<number, string> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** git's deepest delta chain is 4095 (pack.depth); past that, no git server made the pack. */
const MAX_DELTA_DEPTH = 4095;
/** Bytes hashed between turns of the event loop (a 16 MiB blob is not hashed in one go). */
const HASH_STEP = 1024 * 1024;
/** Resolved delta bases kept for the next delta of a chain; larger ones are inflated again. */
const BASE_CACHE_BYTES = 8 * 1024 * 1024;
/** idx v2 stores offsets below 2^31 in its main table; isomorphic-git reads no other. */
const MAX_OFFSET = 2 ** 31;

/** A pack git (or isomorphic-git) could not index; the message never quotes the pack. */
export class UnindexablePack extends Error {}

export interface IndexedObject {
  type: string;
  object: Buffer;
}

/** Objects outside the pack a ref-delta may name (isomorphic-git's fetch asks for no thin pack). */
export type ExternalBase = (oid: string) => Promise<IndexedObject | undefined>;

interface Entry {
  offset: number;
  /** Where the object's data (after its header) starts, and where the next object starts. */
  data: number;
  end: number;
  type: number;
  size: number;
  /** ofs-delta: its base's offset; ref-delta: its base's id. */
  base?: number | string;
  oid?: string;
}

/**
 * The .idx of `pack` (a whole version 2 pack). `yieldNow` is awaited between objects (the
 * fetch's deadline check).
 */
export async function packIndex(
  pack: Buffer,
  external: ExternalBase,
  yieldNow: () => Promise<void>,
): Promise<Buffer> {
  if (pack.length > MAX_OFFSET) throw new UnindexablePack("it is 2 GiB or more");
  // The pack is stored under this checksum's name: a pack whose trailer lies could replace
  // another pack of the cache under its index.
  const sum = await digest(createHash("sha1"), pack.subarray(0, pack.length - 20), yieldNow);
  if (!sum.equals(pack.subarray(pack.length - 20)))
    throw new UnindexablePack("its checksum does not match its contents");
  const entries = await readEntries(pack, yieldNow);
  const byOffset = new Map(entries.map(e => [e.offset, e]));
  const byOid = new Map<string, Entry>();
  for (const e of entries) if (e.oid !== undefined) byOid.set(e.oid, e);
  const resolver = new Resolver(pack, byOffset, byOid, external);
  // A ref-delta's base may itself be a delta named by its id: resolve until nothing moves.
  for (let pending = entries.filter(e => e.oid === undefined); pending.length > 0; ) {
    const left: Entry[] = [];
    for (const e of pending) {
      const resolved = await resolver.resolve(e, 0);
      if (resolved === undefined) left.push(e);
      else {
        e.oid = await objectId(resolved.type, resolved.object, yieldNow);
        byOid.set(e.oid, e);
      }
      await yieldNow();
    }
    if (left.length === pending.length)
      throw new UnindexablePack(`the delta at offset ${left[0].offset} has no base`);
    pending = left;
  }
  return idxFile(pack, entries);
}

/** Every object's header, and the id of each that is no delta. */
async function readEntries(pack: Buffer, yieldNow: () => Promise<void>): Promise<Entry[]> {
  const count = pack.readUInt32BE(8);
  const entries: Entry[] = [];
  let pos = 12;
  for (let i = 0; i < count; i++) {
    const e = header(pack, pos);
    const { bytes, consumed } = await inflateAt(pack, e.data, e.size);
    e.end = e.data + consumed;
    if (e.type !== OFS_DELTA && e.type !== REF_DELTA)
      e.oid = await objectId(TYPE_NAMES[e.type], bytes, yieldNow);
    entries.push(e);
    pos = e.end;
    await yieldNow();
  }
  return entries;
}

function header(pack: Buffer, offset: number): Entry {
  if (offset >= pack.length - 20) throw new UnindexablePack(`it ends at offset ${offset}`);
  let byte = pack[offset];
  const type = (byte >> 4) & 7;
  let size = byte & 15;
  let pos = offset + 1;
  for (let shift = 4; byte & 0x80; shift += 7) {
    byte = pack[pos++];
    size += (byte & 0x7f) * 2 ** shift;
  }
  let base: number | string | undefined;
  if (type === OFS_DELTA) {
    // git's offset encoding: each continuation adds one before shifting.
    byte = pack[pos++];
    let back = byte & 0x7f;
    while (byte & 0x80) {
      byte = pack[pos++];
      back = (back + 1) * 128 + (byte & 0x7f);
    }
    base = offset - back;
    // A base is an earlier object: one at the delta's own offset would be itself, resolved
    // again at every level of the chain.
    if (back === 0 || base < 12)
      throw new UnindexablePack(`the delta at offset ${offset} has no base`);
  } else if (type === REF_DELTA) {
    base = pack.toString("hex", pos, pos + 20);
    pos += 20;
  } else if (TYPE_NAMES[type] === undefined)
    throw new UnindexablePack(`the object at offset ${offset} has type ${type}`);
  return { offset, data: pos, end: pos, type, size, base };
}

/** Inflates the object data at `pos`, exactly `size` bytes, off the event loop. */
async function inflateAt(pack: Buffer, pos: number, size: number) {
  const out = await inflateObject(pack.subarray(pos, pack.length - 20), size);
  if (out === undefined)
    throw new UnindexablePack(`the object at offset ${pos} does not inflate to ${size} bytes`);
  return out;
}

async function objectId(type: string, object: Buffer, yieldNow: () => Promise<void>) {
  const hash = createHash("sha1").update(`${type} ${object.length}\0`);
  return (await digest(hash, object, yieldNow)).toString("hex");
}

/** `hash` of `data` and what came before, a step at a time between turns of the event loop. */
async function digest(hash: Hash, data: Buffer, yieldNow: () => Promise<void>): Promise<Buffer> {
  for (let at = 0; at < data.length; at += HASH_STEP) {
    if (at > 0) await yieldNow();
    hash.update(data.subarray(at, at + HASH_STEP));
  }
  return hash.digest();
}

/**
 * Resolves deltas to their objects, keeping a few recent bases for the rest of a chain, and the
 * last object resolved whatever its size (the next delta of a chain is usually built on it, so a
 * chain of large objects resolves once, not once per delta).
 */
class Resolver {
  readonly #cache = new Map<number, IndexedObject>();
  #cached = 0;
  #last: { offset: number; object: IndexedObject } | undefined;
  /** Ids asked of the repository outside the pack and not found there: not asked again. */
  readonly #missing = new Set<string>();

  constructor(
    private readonly pack: Buffer,
    private readonly byOffset: Map<number, Entry>,
    private readonly byOid: Map<string, Entry>,
    private readonly external: ExternalBase,
  ) {}

  /** The object at `e`; undefined while its ref-delta base is not known yet. */
  async resolve(e: Entry, depth: number): Promise<IndexedObject | undefined> {
    if (this.#last?.offset === e.offset) return this.#last.object;
    const hit = this.#cache.get(e.offset);
    if (hit !== undefined) return hit;
    if (depth > MAX_DELTA_DEPTH)
      throw new UnindexablePack(`the delta at offset ${e.offset} is in a chain too deep`);
    if (e.base === undefined)
      return {
        type: TYPE_NAMES[e.type],
        object: (await inflateAt(this.pack, e.data, e.size)).bytes,
      };
    // The base first: no level of a chain holds its delta's bytes while the levels below resolve.
    const base = await this.#base(e, depth);
    if (base === undefined) return undefined;
    const { bytes } = await inflateAt(this.pack, e.data, e.size);
    const object = { type: base.type, object: applyDelta(bytes, base.object, e.offset) };
    this.#keep(e.offset, object);
    this.#last = { offset: e.offset, object };
    return object;
  }

  async #base(e: Entry, depth: number): Promise<IndexedObject | undefined> {
    if (typeof e.base === "number") {
      const entry = this.byOffset.get(e.base);
      if (entry === undefined)
        throw new UnindexablePack(`the delta at offset ${e.offset} has no base`);
      return this.resolve(entry, depth + 1);
    }
    const oid = e.base as string;
    const entry = this.byOid.get(oid);
    if (entry) return this.resolve(entry, depth + 1);
    if (this.#missing.has(oid)) return undefined;
    const found = await this.external(oid);
    if (found === undefined) this.#missing.add(oid);
    return found;
  }

  #keep(offset: number, object: IndexedObject): void {
    const size = object.object.length;
    if (size > BASE_CACHE_BYTES / 4) return;
    this.#cache.set(offset, object);
    this.#cached += size;
    for (const [key, old] of this.#cache) {
      if (this.#cached <= BASE_CACHE_BYTES) break;
      this.#cache.delete(key);
      this.#cached -= old.object.length;
    }
  }
}

/** git's delta format: the base's size, the result's, then copy and insert instructions. */
export function applyDelta(delta: Buffer, base: Buffer, offset = 0): Buffer {
  const bad = () => new UnindexablePack(`the delta at offset ${offset} does not apply`);
  let pos = 0;
  const size = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (pos >= delta.length) throw bad();
      const byte = delta[pos++];
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
  };
  if (size() !== base.length) throw bad();
  const out = Buffer.allocUnsafe(size());
  let at = 0;
  while (pos < delta.length) {
    const op = delta[pos++];
    if (op & 0x80) {
      let from = 0;
      let length = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) from += delta[pos++] * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (16 << i)) length += delta[pos++] * 2 ** (8 * i);
      if (length === 0) length = 0x10000;
      if (pos > delta.length || from + length > base.length || at + length > out.length)
        throw bad();
      at += base.copy(out, at, from, from + length);
    } else if (op > 0) {
      if (pos + op > delta.length || at + op > out.length) throw bad();
      at += delta.copy(out, at, pos, pos + op);
      pos += op;
    } else throw bad();
  }
  if (at !== out.length) throw bad();
  return out;
}

/** The idx v2 file: fan-out, sorted ids, CRC-32s, offsets, the pack's checksum, its own. */
function idxFile(pack: Buffer, entries: Entry[]): Buffer {
  const sorted = [...entries].sort((a, b) => (a.oid! < b.oid! ? -1 : a.oid! > b.oid! ? 1 : 0));
  const n = sorted.length;
  const idx = Buffer.alloc(8 + 256 * 4 + n * 28 + 40);
  idx.writeUInt32BE(0xff744f63, 0);
  idx.writeUInt32BE(2, 4);
  const fanout = new Array<number>(256).fill(0);
  for (const e of sorted) fanout[Number.parseInt(e.oid!.slice(0, 2), 16)]++;
  for (let i = 0, total = 0; i < 256; i++) idx.writeUInt32BE((total += fanout[i]), 8 + i * 4);
  const ids = 8 + 256 * 4;
  const crcs = ids + n * 20;
  const offsets = crcs + n * 4;
  sorted.forEach((e, i) => {
    idx.write(e.oid!, ids + i * 20, "hex");
    idx.writeUInt32BE(crc32(pack.subarray(e.offset, e.end)), crcs + i * 4);
    idx.writeUInt32BE(e.offset, offsets + i * 4);
  });
  pack.copy(idx, offsets + n * 4, pack.length - 20);
  createHash("sha1")
    .update(idx.subarray(0, idx.length - 20))
    .digest()
    .copy(idx, idx.length - 20);
  return idx;
}
