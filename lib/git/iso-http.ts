// isomorphic-git's HTTP client, with one repair: when a remote's HEAD names a missing branch (an
// empty repository's default branch while porch created another one), isomorphic-git's fetch
// writes the refs and then throws before it stores the packfile. Adding the `symref=HEAD:<branch>`
// capability to the ref advertisement gives it the default branch it looks for.
//
// And the ref advertisement of one fetch, taken once: isomorphic-git's fetch asks for the
// advertisement again (a second full listing of every ref) and then writes every ref it names.
// Replaying the first answer, cut down to the refs that changed, saves the request, the writes,
// and the want lines of refs the cache has already.
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { BadPktLine, FLUSH, pkt, pktHeader, pktLines } from "./pkt-line";

const UPLOAD_PACK_ADVERTISEMENT = /\/info\/refs\?service=git-upload-pack$/;

/** An upload-pack ref advertisement as received (body bounded by the per-fetch limit). */
export interface Advertisement {
  response: Omit<GitHttpResponse, "body">;
  body: Buffer;
}

/** An HttpClient keeping the upload-pack advertisement it passes on (`taken`). */
export function recordingAdvertisement(http: HttpClient): {
  http: HttpClient;
  taken(): Advertisement | undefined;
} {
  let taken: Advertisement | undefined;
  return {
    taken: () => taken,
    http: {
      async request(req: GitHttpRequest): Promise<GitHttpResponse> {
        const res = await http.request(req);
        if (!UPLOAD_PACK_ADVERTISEMENT.test(req.url) || res.body === undefined) return res;
        const { body: stream, ...response } = res;
        const body = await bytes(stream);
        taken = { response, body };
        return { ...response, body: once(body) };
      },
    },
  };
}

/**
 * An HttpClient answering the upload-pack advertisement with `adv` cut down to the refs `keep`
 * accepts (HEAD always stays: isomorphic-git's fetch needs it), every other request from `http`.
 */
export function replayingAdvertisement(
  http: HttpClient,
  adv: Advertisement,
  keep: (ref: string) => boolean,
): HttpClient {
  return {
    request(req: GitHttpRequest): Promise<GitHttpResponse> {
      if (!UPLOAD_PACK_ADVERTISEMENT.test(req.url)) return http.request(req);
      return Promise.resolve({ ...adv.response, body: once(keepRefs(adv.body, keep)) });
    },
  };
}

/**
 * The advertisement with only the ref lines `keep` accepts (and HEAD, and the peeled lines of
 * kept tags); the capabilities move to the first line kept. Lines kept as they are stay views of
 * `adv` (their bytes exactly) until the one copy that joins them; only a line whose capabilities
 * move is written anew. Unparsable input comes back as it is. Exported for tests.
 */
export function keepRefs(adv: Buffer, keep: (ref: string) => boolean): Buffer {
  const out: Buffer[] = [];
  let capabilities: string | undefined;
  let keptRef = false;
  try {
    for (const { payload } of pktLines(adv)) {
      if (payload === null || !isRefLine(payload)) {
        out.push(...framed(payload));
        continue;
      }
      const text = payload.toString("utf8");
      const nul = text.indexOf("\0");
      const head = (nul < 0 ? text : text.slice(0, nul)).replace(/\n$/, "");
      if (nul >= 0) capabilities ??= text.slice(nul + 1).replace(/\n$/, "");
      const name = head.slice(41).replace(/\^\{\}$/, "");
      if (name !== "HEAD" && !keep(name)) continue;
      const first = capabilities !== undefined && !keptRef;
      keptRef = true;
      if (!first && nul < 0 && text.endsWith("\n")) out.push(...framed(payload));
      else out.push(...framed(Buffer.from(first ? `${head}\0${capabilities}\n` : `${head}\n`)));
    }
  } catch (err) {
    if (err instanceof BadPktLine) return adv;
    throw err;
  }
  return Buffer.concat(out);
}

/** A pkt-line's payload framed again (null: a flush), as a header and the payload itself. */
function framed(payload: Buffer | null): Buffer[] {
  return payload === null ? [FLUSH] : [pktHeader(payload.length), payload];
}

/** Whether a payload is a ref line: an oid and a space first. */
function isRefLine(payload: Buffer): boolean {
  return /^[0-9a-f]{40} $/.test(payload.toString("latin1", 0, 41));
}

/** A body joined: its chunks copied once. */
export async function bytes(body: AsyncIterableIterator<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export function once(body: Buffer): AsyncIterableIterator<Uint8Array> {
  return (async function* () {
    yield body;
  })();
}

export function httpWithHeadHint(http: HttpClient, branch: string): HttpClient {
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const res = await http.request(req);
      if (
        !UPLOAD_PACK_ADVERTISEMENT.test(req.url) ||
        res.statusCode !== 200 ||
        res.body === undefined
      )
        return res;
      return { ...res, body: once(addHeadSymref(await bytes(res.body), branch)) };
    },
  };
}

/**
 * Rewrites the first ref line's capabilities when the advertisement has no HEAD, in one walk
 * over its lines; the other lines are copied once, as they are. Exported for tests.
 */
export function addHeadSymref(adv: Buffer, branch: string): Buffer {
  let first: { at: number; payload: Buffer } | undefined;
  let firstBranch: string | undefined;
  let hasBranch = false;
  try {
    for (const { payload, at } of pktLines(adv)) {
      if (payload === null || !isRefLine(payload)) continue;
      first ??= { at, payload };
      const name = payload.toString("utf8", 41).split("\0")[0].trim();
      if (name === "HEAD") return adv;
      if (!name.startsWith("refs/heads/")) continue;
      firstBranch ??= name;
      hasBranch ||= name === `refs/heads/${branch}`;
    }
  } catch (err) {
    if (err instanceof BadPktLine) return adv;
    throw err;
  }
  if (first === undefined || firstBranch === undefined) return adv;
  const text = first.payload.toString("utf8");
  const nul = text.indexOf("\0");
  if (nul < 0 || text.includes("symref=HEAD:")) return adv;
  const target = hasBranch ? `refs/heads/${branch}` : firstBranch;
  const line = Buffer.from(
    `${text.slice(0, nul + 1)}${text.slice(nul + 1).replace(/\n$/, "")} symref=HEAD:${target}\n`,
    "utf8",
  );
  const rest = adv.subarray(first.at + 4 + first.payload.length);
  return Buffer.concat([adv.subarray(0, first.at), pkt(line), rest]);
}

/** HTTP status carried by an isomorphic-git HttpError, if any. */
export function httpStatus(err: unknown): number | undefined {
  if (err === null || typeof err !== "object" || !("data" in err)) return undefined;
  const data = (err as { data: unknown }).data;
  if (data !== null && typeof data === "object" && "statusCode" in data)
    return Number((data as { statusCode: unknown }).statusCode);
  return undefined;
}
