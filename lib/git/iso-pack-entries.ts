// The objects of a fetched pack as its index needs them, in typed arrays: where each starts,
// its type and size, its delta base, its id once known. One JS object per entry with hex ids
// took about 200 bytes of heap per object (100 MB at the 500,000-object cap); these arrays take
// ENTRY_BYTES. Also the first pass over the pack, which fills them, and the helpers both passes
// share (inflating off the event loop, hashing a step at a time).
import { createHash, type Hash } from "node:crypto";
import { inflateObject } from "./pack-scan";

/** A pack git (or isomorphic-git) could not index; the message never quotes the pack. */
export class UnindexablePack extends Error {}

/** What indexing did, for tests that bound it by counts rather than time. */
export interface IndexWork {
  /** Objects (or deltas) inflated. */
  inflates: number;
  /** Deltas applied to a base. */
  applies: number;
  /** Children of an object looked at while resolving (each should be looked at once or so). */
  visits: number;
}

export const TYPE_NAMES: Record<number, string> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };
export const OFS_DELTA = 6;
export const REF_DELTA = 7;
/** Index of no object (an entry that is no ofs-delta has no base index). */
export const NONE = 0xffffffff;
/** Bytes hashed between turns of the event loop (a 16 MiB blob is not hashed in one go). */
const HASH_STEP = 1024 * 1024;
/** The smallest object: a one-byte header and a zlib stream (2-byte header, data, adler-32). */
const MIN_OBJECT_BYTES = 8;

/**
 * Bytes the arrays take per object: offset 4, header length 1, type 1, size 4, base index 4,
 * id 20, resolved 1, and the ofs-delta children table (child start 4, child 4 at most).
 */
export const ENTRY_BYTES = 4 + 1 + 1 + 4 + 4 + 20 + 1 + 4 + 4;

export class PackEntries {
  /** Where object i starts; offsets[count] is where the last one ends. */
  readonly offsets: Uint32Array;
  /** Bytes of object i's header (type and size, and its base): its data starts after them. */
  readonly headerLengths: Uint8Array;
  readonly types: Uint8Array;
  /** Inflated size of object i's data (a delta's own, not its result's). */
  readonly sizes: Uint32Array;
  /** An ofs-delta's base, by index; NONE for any other object. */
  readonly bases: Uint32Array;
  /** Object i's id at ids[20 i]; valid once resolved[i] is 1. */
  readonly ids: Buffer;
  readonly resolved: Uint8Array;
  /** Ofs-deltas based on object i: children[childStart[i]] up to children[childStart[i + 1]]. */
  readonly childStart: Uint32Array;
  children: Uint32Array = new Uint32Array(0);

  constructor(readonly count: number) {
    this.offsets = new Uint32Array(count + 1);
    this.headerLengths = new Uint8Array(count);
    this.types = new Uint8Array(count);
    this.sizes = new Uint32Array(count);
    this.bases = new Uint32Array(count);
    this.ids = Buffer.alloc(count * 20);
    this.resolved = new Uint8Array(count);
    this.childStart = new Uint32Array(count + 1);
  }

  /** Bytes allocated for the entries (the tests bound it per object). */
  get byteLength(): number {
    const arrays = [this.offsets, this.headerLengths, this.types, this.sizes, this.bases];
    return [...arrays, this.ids, this.resolved, this.childStart, this.children].reduce(
      (sum, a) => sum + a.byteLength,
      0,
    );
  }

  dataStart(i: number): number {
    return this.offsets[i] + this.headerLengths[i];
  }

  /** Where a ref-delta's base id is in the pack: the 20 bytes before its data. */
  refBase(i: number): number {
    return this.dataStart(i) - 20;
  }

  isDelta(i: number): boolean {
    return this.types[i] === OFS_DELTA || this.types[i] === REF_DELTA;
  }

  /** Fills the children table from `bases` (each ofs-delta lists under its base). */
  linkChildren(): void {
    const { count, bases, childStart } = this;
    for (let i = 0; i < count; i++) if (bases[i] !== NONE) childStart[bases[i] + 1]++;
    for (let i = 0; i < count; i++) childStart[i + 1] += childStart[i];
    const children = new Uint32Array(childStart[count]);
    const next = childStart.slice(0, count);
    for (let i = 0; i < count; i++) if (bases[i] !== NONE) children[next[bases[i]]++] = i;
    this.children = children;
  }
}

/**
 * The first pass: every object's header, where it ends (by inflating it), and the id of each
 * that is no delta. `yieldNow` is awaited between objects.
 */
export async function readEntries(
  pack: Buffer,
  yieldNow: () => Promise<void>,
  work: IndexWork,
): Promise<PackEntries> {
  const count = pack.readUInt32BE(8);
  // The arrays are allocated for the count the header claims: no more than the bytes can hold.
  if (count > (pack.length - 32) / MIN_OBJECT_BYTES)
    throw new UnindexablePack(`it claims ${count} objects in ${pack.length} bytes`);
  const entries = new PackEntries(count);
  let pos = 12;
  for (let i = 0; i < count; i++) {
    readHeader(pack, pos, entries, i);
    const { bytes, consumed } = await inflateAt(pack, entries.dataStart(i), entries.sizes[i], work);
    pos = entries.dataStart(i) + consumed;
    entries.offsets[i + 1] = pos;
    const type = entries.types[i];
    if (!entries.isDelta(i)) {
      await objectId(TYPE_NAMES[type], bytes, yieldNow, entries.ids, i);
      entries.resolved[i] = 1;
    }
    await yieldNow();
  }
  entries.linkChildren();
  return entries;
}

/** Reads the header of object `i` at `offset` into `entries`. */
function readHeader(pack: Buffer, offset: number, entries: PackEntries, i: number): void {
  if (offset >= pack.length - 20) throw new UnindexablePack(`it ends at offset ${offset}`);
  let byte = pack[offset];
  const type = (byte >> 4) & 7;
  let size = byte & 15;
  let pos = offset + 1;
  for (let shift = 4; byte & 0x80; shift += 7) {
    byte = pack[pos++];
    size += (byte & 0x7f) * 2 ** shift;
  }
  // The scan held every size to the object limit; a header past it was not scanned.
  if (size > 0xffffffff)
    throw new UnindexablePack(`the object at offset ${offset} is ${size} bytes inflated`);
  let base = NONE;
  if (type === OFS_DELTA) {
    // git's offset encoding: each continuation adds one before shifting.
    byte = pack[pos++];
    let back = byte & 0x7f;
    while (byte & 0x80) {
      byte = pack[pos++];
      back = (back + 1) * 128 + (byte & 0x7f);
    }
    // A base is an earlier object: one at the delta's own offset would be itself.
    base = back === 0 ? NONE : indexAt(entries.offsets, i, offset - back);
    if (base === NONE) throw new UnindexablePack(`the delta at offset ${offset} has no base`);
  } else if (type === REF_DELTA) pos += 20;
  else if (TYPE_NAMES[type] === undefined)
    throw new UnindexablePack(`the object at offset ${offset} has type ${type}`);
  entries.offsets[i] = offset;
  entries.headerLengths[i] = pos - offset;
  entries.types[i] = type;
  entries.sizes[i] = size;
  entries.bases[i] = base;
}

/** The index of the object among the first `count` that starts at `offset`; NONE if none. */
function indexAt(offsets: Uint32Array, count: number, offset: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid] < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo < count && offsets[lo] === offset ? lo : NONE;
}

/**
 * `order` (indexes below `count`) sorted by the 20-byte ids at `idAt(i)` of `buf`. The ids'
 * first four bytes are compared as numbers first: a Buffer.compare for every pair took ten times
 * as long for 500,000 ids (seconds with the event loop held).
 */
export function sortByIds(
  order: Uint32Array,
  count: number,
  buf: Buffer,
  idAt: (i: number) => number,
): Uint32Array {
  const prefix = new Uint32Array(count);
  for (const i of order) prefix[i] = buf.readUInt32BE(idAt(i));
  return order.sort((a, b) => {
    if (prefix[a] !== prefix[b]) return prefix[a] - prefix[b];
    const [x, y] = [idAt(a), idAt(b)];
    return buf.compare(buf, y, y + 20, x, x + 20);
  });
}

/** Inflates the object data at `pos`, exactly `size` bytes, off the event loop. */
export async function inflateAt(pack: Buffer, pos: number, size: number, work: IndexWork) {
  work.inflates++;
  const out = await inflateObject(pack.subarray(pos, pack.length - 20), size);
  if (out === undefined)
    throw new UnindexablePack(`the object at offset ${pos} does not inflate to ${size} bytes`);
  return out;
}

/** Writes the id of `object` as `type` into slot `i` of `ids`. */
export async function objectId(
  type: string,
  object: Buffer,
  yieldNow: () => Promise<void>,
  ids: Buffer,
  i: number,
): Promise<void> {
  const hash = createHash("sha1").update(`${type} ${object.length}\0`);
  (await digest(hash, object, yieldNow)).copy(ids, i * 20);
}

/** `hash` of `data` and what came before, a step at a time between turns of the event loop. */
export async function digest(
  hash: Hash,
  data: Buffer,
  yieldNow: () => Promise<void>,
): Promise<Buffer> {
  for (let at = 0; at < data.length; at += HASH_STEP) {
    if (at > 0) await yieldNow();
    hash.update(data.subarray(at, at + HASH_STEP));
  }
  return hash.digest();
}
