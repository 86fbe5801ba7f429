// A push of ref updates (one request, a command per ref) over smart HTTP with the objects the caller names (iso-push.ts finds
// them): the receive-pack ref advertisement through isomorphic-git, the request and the status
// report here. The answer is read whole; the HTTP client bounds it (per-fetch limit).
import fs from "node:fs";
import git, { type HttpClient } from "isomorphic-git";
import type { AdvertisedRefs } from "./advertisement";
import { ZERO_OID } from "./client";
import { GitStoreError, displayUrl } from "./errors";
import { bytes, pkt, pktLines } from "./iso-http";

export interface SendPackRemote {
  http: HttpClient;
  url: string;
  headers: Record<string, string>;
  onAuthFailure: () => { cancel: boolean };
}

/** What the server said of the update: undefined when it took it, else its words (bounded). */
export type SendPackRefused = { stage: "lease" | "ref" | "unpack"; says: string } | undefined;

export interface LeasedUpdate {
  ref: string;
  oid: string | null;
  expect: string | null;
}

/**
 * Sends each update from the remote's value to its `oid` (null deletes) in one request with
 * `objects`, when the remote's value is its `expect` (null: no ref). Returns, per ref, why the
 * server (or the lease) refused, if it did: one refused ref leaves the others to land.
 */
export async function sendPack(
  remote: SendPackRemote,
  gitdir: string,
  cache: object,
  updates: LeasedUpdate[],
  objects: string[],
  atomic = false,
  heard?: (refs: AdvertisedRefs) => void,
): Promise<Map<string, SendPackRefused>> {
  const info = await git.getRemoteInfo2({ ...remote, forPush: true, protocolVersion: 1 });
  if (info.protocolVersion !== 1) throw new Error("receive-pack answered in protocol v2");
  if (atomic && info.capabilities.atomic === undefined) throw new AtomicUnsupported();
  const advertised = new Map((info.refs ?? []).map(r => [r.ref, r.oid]));
  heard?.(new Map([...advertised].filter(([ref]) => ref.startsWith("refs/"))));
  const verdicts = new Map<string, SendPackRefused>();
  const commands: string[] = [];
  for (const u of updates) {
    const old = advertised.get(u.ref) ?? ZERO_OID;
    if (old === (u.expect ?? ZERO_OID)) {
      commands.push(`${old} ${u.oid ?? ZERO_OID} ${u.ref}`);
      continue;
    }
    const expected = u.expect === null ? "no ref" : u.expect.slice(0, 12);
    verdicts.set(u.ref, {
      stage: "lease",
      says: `${u.ref} is at ${old.slice(0, 12)}, expected ${expected}`,
    });
  }
  if (commands.length === 0) return verdicts;
  if (atomic && verdicts.size > 0) {
    for (const u of updates)
      if (!verdicts.has(u.ref))
        verdicts.set(u.ref, { stage: "lease", says: "not sent: atomic push failed" });
    return verdicts;
  }
  // Only capabilities the server offers (some refuse a request naming one they do not know).
  const caps = ["report-status", "side-band-64k", ...(atomic ? ["atomic"] : [])].filter(
    c => info.capabilities[c] !== undefined,
  );
  const body: Uint8Array[] = commands.map((c, i) =>
    pkt(Buffer.from(i === 0 ? `${c}\0 ${caps.join(" ")}\n` : `${c}\n`, "utf8")),
  );
  body.push(Buffer.from("0000"));
  const sent = updates.filter(u => !verdicts.has(u.ref));
  if (sent.some(u => u.oid !== null)) {
    const { packfile } = await git.packObjects({ fs, gitdir, cache, oids: objects });
    body.push(packfile!);
  }
  const res = await remote.http.request({
    url: `${remote.url}/git-receive-pack`,
    method: "POST",
    headers: {
      ...remote.headers,
      "content-type": "application/x-git-receive-pack-request",
      accept: "application/x-git-receive-pack-result",
    },
    body: (async function* () {
      yield* body;
    })(),
  });
  const answer = res.body === undefined ? Buffer.alloc(0) : await bytes(res.body);
  if (res.statusCode !== 200) throw new git.Errors.HttpError(res.statusCode, res.statusMessage, "");
  try {
    const report = caps.includes("side-band-64k") ? sideBand(answer) : answer;
    for (const u of sent)
      verdicts.set(u.ref, caps.includes("report-status") ? statusReport(report, u.ref) : undefined);
    return verdicts;
  } catch (err) {
    if (!(err instanceof BadAnswer)) throw err;
    // Named by what was wrong, never by what the server wrote there.
    throw new GitStoreError(
      "Transport",
      `git push (${displayUrl(remote.url)}) failed: the server did not answer as a git smart HTTP server (${err.message})`,
    );
  }
}

/** A server that cannot apply a push's updates all or none (receive-pack's "atomic"). */
export class AtomicUnsupported extends Error {}

/** A receive-pack answer that is not one. */
class BadAnswer extends Error {}

/** The status report's verdict on `ref`. Exported for tests. */
export function statusReport(report: Buffer, ref: string): SendPackRefused {
  const lines = (pktLines(report) ?? [])
    .map(l => l.payload?.toString("utf8").replace(/\n$/, ""))
    .filter((l): l is string => l !== undefined);
  const unpack = lines.find(l => l.startsWith("unpack "));
  if (unpack === undefined) throw new BadAnswer("no status report");
  if (unpack !== "unpack ok") return { stage: "unpack", says: printable(unpack) };
  const verdict = lines.find(l => l === `ok ${ref}` || l.startsWith(`ng ${ref} `));
  if (verdict === undefined) throw new BadAnswer("the status report names no such ref");
  return verdict.startsWith("ok ") ? undefined : { stage: "ref", says: printable(verdict) };
}

/** Band 1 of a side-band answer; band 3 is the server's fatal error. */
function sideBand(answer: Buffer): Buffer {
  const data: Buffer[] = [];
  for (const line of pktLines(answer) ?? []) {
    if (line.payload === null || line.payload.length === 0) continue;
    const band = line.payload[0];
    if (band === 1) data.push(line.payload.subarray(1));
    if (band === 3) throw new BadAnswer("a fatal error on side band 3");
  }
  return Buffer.concat(data);
}

/** The server's words as one short line of printable text. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, " ").slice(0, 200);
}
