// A push of ref updates (one request, a command per ref) over smart HTTP with the objects the caller names (iso-push.ts finds
// them): the receive-pack ref advertisement through isomorphic-git, the request and the status
// report here. The answer is read within a few lines' bytes per ref sent (ANSWER_BYTES) and its
// report parsed once, as views of its bytes.
import fs from "node:fs";
import git, { type HttpClient } from "isomorphic-git";
import type { AdvertisedRefs } from "./advertisement";
import { ZERO_OID } from "./client";
import { GitStoreError, displayUrl } from "./errors";
import { BadPktLine, FLUSH, pkt, pktLines } from "./pkt-line";

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
  body.push(FLUSH);
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
  if (res.statusCode !== 200) throw new git.Errors.HttpError(res.statusCode, res.statusMessage, "");
  try {
    const answer = await answerOf(res.body, ANSWER_BYTES + ANSWER_BYTES_PER_REF * sent.length);
    const report = caps.includes("side-band-64k") ? sideBand(answer) : answer;
    const refs = sent.map(u => u.ref);
    const reported = caps.includes("report-status") ? statusReports(report, refs) : undefined;
    for (const ref of refs) verdicts.set(ref, reported?.get(ref));
    return verdicts;
  } catch (caught) {
    const err = caught instanceof BadPktLine ? new BadAnswer(caught.message) : caught;
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

/**
 * A receive-pack answer: a status report line per ref (its name and the server's reason) and
 * progress or hook messages on side band 2, which real servers keep to a few KiB. Past this a
 * server is flooding, not answering.
 */
export const ANSWER_BYTES = 64 * 1024;
export const ANSWER_BYTES_PER_REF = 1024;

/** The answer's body, refused past `max` bytes. */
async function answerOf(body: AsyncIterable<Uint8Array> | undefined, max: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body ?? []) {
    size += chunk.length;
    if (size > max) throw new BadAnswer(`an answer of more than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The status report's verdict on each of `refs` (the refs sent), read in one walk that stops at
 * the report's flush or its first line past one per ref and the unpack status. Exported for
 * tests.
 */
export function statusReports(
  report: Buffer,
  refs: readonly string[],
): Map<string, SendPackRefused> {
  const maxLines = refs.length + 2; // the unpack status, a line per ref, the flush
  const said = new Map<string, SendPackRefused>();
  let unpack: string | undefined;
  let lines = 0;
  try {
    for (const { payload } of pktLines(report)) {
      if (++lines > maxLines) throw new BadAnswer(`a status report of more than ${maxLines} lines`);
      if (payload === null) break;
      const line = payload.toString("utf8").replace(/\n$/, "");
      if (unpack === undefined) {
        if (!line.startsWith("unpack ")) break;
        unpack = line;
        continue;
      }
      // "ok <ref>" or "ng <ref> <reason>"; the first verdict on a ref is its verdict.
      const ref = /^(?:ok (\S+)$|ng (\S+) )/.exec(line);
      const name = ref?.[1] ?? ref?.[2];
      if (name === undefined || said.has(name)) continue;
      said.set(name, line.startsWith("ok ") ? undefined : { stage: "ref", says: printable(line) });
    }
  } catch (err) {
    // Band 1 that is no pkt-lines at all is no report; cut inside one, a broken report.
    if (!(err instanceof BadPktLine)) throw err;
    throw new BadAnswer(unpack === undefined ? "no status report" : err.message);
  }
  if (unpack === undefined) throw new BadAnswer("no status report");
  const verdicts = new Map<string, SendPackRefused>();
  for (const ref of refs) {
    if (unpack !== "unpack ok") verdicts.set(ref, { stage: "unpack", says: printable(unpack) });
    else if (said.has(ref)) verdicts.set(ref, said.get(ref));
    else throw new BadAnswer("the status report names no such ref");
  }
  return verdicts;
}

/** Band 1 of a side-band answer (views of it, joined once); band 3 is the server's fatal error. */
function sideBand(answer: Buffer): Buffer {
  const data: Buffer[] = [];
  for (const { payload } of pktLines(answer)) {
    if (payload === null || payload.length === 0) continue;
    const band = payload[0];
    if (band === 1) data.push(payload.subarray(1));
    if (band === 3) throw new BadAnswer("a fatal error on side band 3");
  }
  return Buffer.concat(data);
}

/** The server's words as one short line of printable text. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, " ").slice(0, 200);
}
