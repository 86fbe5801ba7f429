// Reads the object headers of a fetched pack before isomorphic-git indexes it: its indexing
// (GitPackIndex.fromPack) inflates every object whole with pako, on the event loop, and
// believes whatever size the stream inflates to, so a few hundred KiB of deflated zeros, or a
// delta that copies its base over and over, take gigabytes. Here each object's declared size
// (and a delta's result size, from the first bytes of its data) is checked against the limits
// before it is inflated, and inflating is capped at that size, so the scan never holds more
// than one object of at most the per-object limit.
import { promisify } from "node:util";
import { inflate } from "node:zlib";

const inflateAsync = promisify(inflate) as unknown as (
  data: Buffer,
  opts: { info: true; maxOutputLength: number; chunkSize: number },
) => Promise<{ buffer: Buffer; engine: { bytesWritten: number } }>;

/** zlib's smallest output chunk. */
const MIN_CHUNK = 64;

/**
 * The zlib stream at the start of `data` inflated, if it makes exactly `size` bytes, and the
 * bytes of `data` it took; undefined if not. Never more than `size` + 1 bytes are allocated:
 * one output chunk of that size, so nothing is joined. zlib runs on libuv's thread pool, so a
 * large object does not hold the event loop.
 */
export async function inflateObject(
  data: Buffer,
  size: number,
): Promise<{ bytes: Buffer; consumed: number } | undefined> {
  const chunkSize = Math.max(MIN_CHUNK, size + 1);
  const out = await inflateAsync(data, { info: true, maxOutputLength: size + 1, chunkSize }).catch(
    () => undefined,
  );
  if (out === undefined || out.buffer.length !== size) return undefined;
  return { bytes: out.buffer, consumed: out.engine.bytesWritten };
}

export interface PackScanLimits {
  maxObjectBytes: number;
  maxInflatedBytes: number;
  maxPackObjects: number;
}

/** What a scan read, so far. */
export interface PackScan {
  /** Objects whose headers were read. */
  objects: number;
  /** Inflated sizes the pack declares: every object's, and each delta's result. */
  declared: number;
  /** Bytes the scan itself inflated (never past a declared size within the limits). */
  inflated: number;
}

export type PackScanResult =
  | { ok: true; scan: PackScan }
  | {
      ok: false;
      /** The limit broken; "malformed" when the pack is not one isomorphic-git should read. */
      limit: keyof PackScanLimits | "malformed";
      /** What is wrong, without quoting the pack. */
      why: string;
      scan: PackScan;
    };

export const OFS_DELTA = 6;
export const REF_DELTA = 7;
const BASE_TYPES = new Set([1, 2, 3, 4]);
/** Give the event loop a turn after this many bytes inflated, or objects read. */
const YIELD_BYTES = 4 * 1024 * 1024;
const YIELD_OBJECTS = 1000;

class Malformed extends Error {}

/** A size varint: 4 (pack header) or 7 (delta header) bits first; Infinity past 2^49. */
export function varint(buf: Buffer, at: number, firstBits: number, firstByte: number) {
  let byte = firstByte;
  let value = byte & ((1 << firstBits) - 1);
  let shift = firstBits;
  let pos = at;
  while (byte & 0x80) {
    if (pos >= buf.length) throw new Malformed("it ends inside an object header");
    byte = buf[pos++];
    const bits = byte & 0x7f;
    // Zero groups may pad a varint; a non-zero one past 2^49 is too large for anything.
    if (bits !== 0) value = shift > 49 ? Infinity : value + bits * 2 ** shift;
    shift += 7;
  }
  return { value, next: pos };
}

/**
 * Scans `pack` (a whole pack file, as isomorphic-git will index it). `signal` ends a long
 * scan when the fetch's deadline passes.
 */
export async function scanPack(
  pack: Buffer,
  limits: PackScanLimits,
  signal?: AbortSignal,
): Promise<PackScanResult> {
  const scan: PackScan = { objects: 0, declared: 0, inflated: 0 };
  const refuse = (limit: keyof PackScanLimits | "malformed", why: string): PackScanResult => ({
    ok: false,
    limit,
    why,
    scan,
  });
  // isomorphic-git stores no pack for an empty answer.
  if (pack.length === 0) return { ok: true, scan };
  if (pack.length < 12 || pack.toString("latin1", 0, 4) !== "PACK" || pack.readUInt32BE(4) !== 2)
    return refuse("malformed", "it does not start with a version 2 pack header");
  const count = pack.readUInt32BE(8);
  // The index holds every object: a pack of millions of empty ones is refused on its header.
  if (count > limits.maxPackObjects) return refuse("maxPackObjects", `it holds ${count} objects`);
  let pos = 12;
  let sinceYield = 0;
  try {
    for (let i = 0; i < count; i++) {
      if (pos >= pack.length) throw new Malformed(`it ends after ${i} of ${count} objects`);
      const offset = pos;
      const first = pack[pos];
      const type = (first >> 4) & 7;
      const header = varint(pack, pos + 1, 4, first);
      const size = header.value;
      pos = header.next;
      if (type === OFS_DELTA) {
        while (pos < pack.length && pack[pos] & 0x80) pos++;
        pos++;
      } else if (type === REF_DELTA) pos += 20;
      else if (!BASE_TYPES.has(type))
        throw new Malformed(`the object at offset ${offset} has type ${type}`);
      if (pos >= pack.length) throw new Malformed("it ends inside an object header");
      scan.objects++;
      // Checked before inflating: a bomb is refused on its header alone.
      if (size > limits.maxObjectBytes)
        return refuse("maxObjectBytes", `the object at offset ${offset} is ${size} bytes inflated`);
      if (scan.declared + size > limits.maxInflatedBytes)
        return refuse(
          "maxInflatedBytes",
          `its objects are more than ${scan.declared + size} bytes inflated`,
        );
      scan.declared += size;
      const data = await inflateExactly(pack, pos, size, offset);
      scan.inflated += data.length;
      pos += data.consumed;
      if (type === OFS_DELTA || type === REF_DELTA) {
        const result = deltaResultSize(data.bytes, offset);
        if (result > limits.maxObjectBytes)
          return refuse(
            "maxObjectBytes",
            `the delta at offset ${offset} makes an object of ${result} bytes`,
          );
        if (scan.declared + result > limits.maxInflatedBytes)
          return refuse(
            "maxInflatedBytes",
            `its objects are more than ${scan.declared + result} bytes inflated`,
          );
        scan.declared += result;
      }
      sinceYield += data.length;
      if (sinceYield >= YIELD_BYTES || i % YIELD_OBJECTS === YIELD_OBJECTS - 1) {
        sinceYield = 0;
        await new Promise(resolve => setImmediate(resolve));
        signal?.throwIfAborted();
      }
    }
  } catch (err) {
    if (err instanceof Malformed) return refuse("malformed", err.message);
    throw err;
  }
  return { ok: true, scan };
}

/**
 * Inflates the zlib stream at `pos`, which must make exactly `size` bytes: never more is
 * allocated (pako, in isomorphic-git, would inflate all of a stream that lies about its size).
 */
async function inflateExactly(pack: Buffer, pos: number, size: number, offset: number) {
  const out = await inflateObject(pack.subarray(pos), size);
  if (out === undefined)
    throw new Malformed(
      `the object at offset ${offset} does not inflate to its size of ${size} bytes`,
    );
  return { ...out, length: out.bytes.length };
}

/** A delta's data starts with its base's size and its result's size. */
export function deltaResultSize(delta: Buffer, offset: number): number {
  if (delta.length === 0) throw new Malformed(`the delta at offset ${offset} is empty`);
  const base = varint(delta, 1, 7, delta[0]);
  if (base.next >= delta.length) throw new Malformed(`the delta at offset ${offset} is cut short`);
  return varint(delta, base.next + 1, 7, delta[base.next]).value;
}
