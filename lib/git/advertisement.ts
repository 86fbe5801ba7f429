// A push begins with the server's list of its refs (the receive-pack ref advertisement). It is
// as good as a fetch's view of the refs: when it shows nothing moved but what we pushed, our
// fetched refs plus our landed updates are the remote's, and the next operation needs no fetch.
import type { AdvertisedRefs, RefMap } from "./client";

export type { AdvertisedRefs };

const ADVERTISED_LINE = /^([0-9a-f]{40}) (refs\/[^\s\\]+)(?:\\0.*)?$/;

/**
 * The first ref advertisement in git's packet trace (GIT_TRACE_PACKET) of a push: the lines
 * git read ("git<" over HTTP, "push<" locally) from the first "<oid> refs/…" to the flush after
 * it. Undefined when there is none; the trace's other lines (the push's commands, the pack,
 * the status report) come after that flush.
 */
export function advertisedInTrace(trace: string): AdvertisedRefs | undefined {
  let refs: AdvertisedRefs | undefined;
  for (const line of trace.split("\n")) {
    const payload = /packet:\s+(?:git|push)< (.*)$/.exec(line)?.[1];
    if (payload === undefined) continue;
    if (refs !== undefined && payload === "0000") return refs;
    const m = ADVERTISED_LINE.exec(payload);
    if (m) (refs ??= new Map()).set(m[2], m[1]);
    // An empty repository advertises "<zero oid> capabilities^{}", then the flush.
    else if (refs === undefined && payload.includes(" capabilities^{}")) refs = new Map();
  }
  return undefined; // cut short: no claim
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
