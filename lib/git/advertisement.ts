// A push begins with the server's list of its refs (the receive-pack ref advertisement). It is
// as good as a fetch's view of the refs: when it shows nothing moved but what we pushed, our
// fetched refs plus our landed updates are the remote's, and the next operation needs no fetch.
import { open } from "node:fs/promises";
import type { AdvertisedRefs, RefMap } from "./client";

export type { AdvertisedRefs };

const ADVERTISED_LINE = /^([0-9a-f]{40}) (refs\/[^\s\\]+)(?:\\0.*)?$/;

/** The first advertisement of a trace, taken a line at a time. */
class TraceAdvertisement {
  refs: AdvertisedRefs | undefined;

  /** Takes the next line of the trace; true once the flush that ends the advertisement came. */
  line(line: string): boolean {
    const payload = /packet:\s+(?:git|push)< (.*)$/.exec(line)?.[1];
    if (payload === undefined) return false;
    if (this.refs !== undefined && payload === "0000") return true;
    const m = ADVERTISED_LINE.exec(payload);
    if (m) (this.refs ??= new Map()).set(m[2], m[1]);
    // An empty repository advertises "<zero oid> capabilities^{}", then the flush.
    else if (this.refs === undefined && payload.includes(" capabilities^{}")) this.refs = new Map();
    return false;
  }
}

/**
 * The first ref advertisement in git's packet trace (GIT_TRACE_PACKET) of a push: the lines
 * git read ("git<" over HTTP, "push<" locally) from the first "<oid> refs/…" to the flush after
 * it. Undefined when there is none; the trace's other lines (the push's commands, the pack,
 * the status report) come after that flush.
 */
export function advertisedInTrace(trace: string): AdvertisedRefs | undefined {
  const advertisement = new TraceAdvertisement();
  for (const line of trace.split("\n")) if (advertisement.line(line)) return advertisement.refs;
  return undefined; // cut short: no claim
}

/** Bytes read from a trace file at a time. */
const TRACE_CHUNK = 64 * 1024;
/** The longest line a packet makes: its payload (at most 65,516 bytes) after git's prefix. */
const TRACE_LINE_BYTES = 66 * 1024;

/**
 * advertisedInTrace of the trace file at `path`, read a chunk at a time and only up to the
 * flush that ends the advertisement: undefined when the advertisement does not end within
 * `maxBytes` of the file. A line longer than a packet makes is not kept (it is no packet's), so
 * no more than a chunk and a line are held besides the refs.
 */
export async function advertisedInTraceFile(
  path: string,
  maxBytes: number,
): Promise<AdvertisedRefs | undefined> {
  const file = await open(path).catch(() => undefined);
  if (file === undefined) return undefined;
  const advertisement = new TraceAdvertisement();
  try {
    const chunk = Buffer.alloc(TRACE_CHUNK);
    let line: Buffer[] = [];
    let lineBytes = 0;
    const ended = () => {
      const whole = lineBytes <= TRACE_LINE_BYTES;
      const text = whole ? Buffer.concat(line).toString("utf8") : "";
      line = [];
      lineBytes = 0;
      return whole && advertisement.line(text);
    };
    for (let read = 0; read < maxBytes; ) {
      const length = Math.min(chunk.length, maxBytes - read);
      const { bytesRead } = await file.read(chunk, 0, length, null);
      // The file's last line, as advertisedInTrace takes it.
      if (bytesRead === 0) return ended() ? advertisement.refs : undefined;
      read += bytesRead;
      const data = chunk.subarray(0, bytesRead);
      for (let start = 0; start <= data.length; ) {
        const nl = data.indexOf(0x0a, start);
        const end = nl < 0 ? data.length : nl;
        if (lineBytes + end - start <= TRACE_LINE_BYTES)
          line.push(Buffer.from(data.subarray(start, end)));
        lineBytes += end - start;
        if (nl < 0) break;
        if (ended()) return advertisement.refs;
        start = nl + 1;
      }
    }
    return undefined; // over the bound: no claim
  } finally {
    await file.close();
  }
}

/**
 * Whether the remote, as advertised before a push, held exactly the refs we know, except those
 * the push changed (`pushed`: what landed, whose old values we leased).
 */
export function onlyPushedMoved(
  known: RefMap,
  advertised: AdvertisedRefs,
  pushed: ReadonlySet<string>,
): boolean {
  for (const [ref, oid] of advertised)
    if (!pushed.has(ref) && known.get(ref)?.oid !== oid) return false;
  for (const ref of known.keys()) if (!pushed.has(ref) && !advertised.has(ref)) return false;
  return true;
}
