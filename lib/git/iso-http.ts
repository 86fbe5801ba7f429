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
 * kept tags); the capabilities move to the first line kept. Unparsable input comes back as it
 * is. Exported for tests.
 */
export function keepRefs(adv: Buffer, keep: (ref: string) => boolean): Buffer {
  const lines = pktLines(adv);
  if (lines === undefined) return adv;
  let capabilities: string | undefined;
  const out: PktLine[] = [];
  for (const line of lines) {
    const text = line.payload?.toString("utf8");
    if (text === undefined || !/^[0-9a-f]{40} /.test(text)) {
      out.push(line);
      continue;
    }
    const nul = text.indexOf("\0");
    const head = (nul < 0 ? text : text.slice(0, nul)).replace(/\n$/, "");
    if (nul >= 0) capabilities ??= text.slice(nul + 1).replace(/\n$/, "");
    const name = head.slice(41).replace(/\^\{\}$/, "");
    if (name !== "HEAD" && !keep(name)) continue;
    const first = capabilities !== undefined && !out.some(l => isRefLine(l));
    out.push({ payload: Buffer.from(first ? `${head}\0${capabilities}\n` : `${head}\n`, "utf8") });
  }
  return Buffer.concat(out.map(l => (l.payload === null ? Buffer.from("0000") : pkt(l.payload))));
}

function isRefLine(line: PktLine): boolean {
  return line.payload !== null && /^[0-9a-f]{40} /.test(line.payload.toString("latin1"));
}

export async function bytes(body: AsyncIterableIterator<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
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
        !/\/info\/refs\?service=git-upload-pack$/.test(req.url) ||
        res.statusCode !== 200 ||
        res.body === undefined
      )
        return res;
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) chunks.push(Buffer.from(chunk));
      const body = addHeadSymref(Buffer.concat(chunks), branch);
      return {
        ...res,
        body: (async function* () {
          yield body;
        })(),
      };
    },
  };
}

/** Rewrites the first ref line's capabilities when the advertisement has no HEAD. Exported for tests. */
export function addHeadSymref(adv: Buffer, branch: string): Buffer {
  const lines = pktLines(adv);
  if (lines === undefined) return adv;
  const refLines = lines.filter(
    l => l.payload !== null && /^[0-9a-f]{40} /.test(l.payload.toString("latin1")),
  );
  const first = refLines[0];
  if (first === undefined || first.payload === null) return adv;
  const text = first.payload.toString("utf8");
  const nul = text.indexOf("\0");
  const names = refLines.map(l => l.payload!.toString("utf8").slice(41).split("\0")[0].trim());
  if (nul < 0 || names.includes("HEAD") || text.includes("symref=HEAD:")) return adv;
  const heads = names.filter(n => n.startsWith("refs/heads/"));
  const target = heads.includes(`refs/heads/${branch}`) ? `refs/heads/${branch}` : heads[0];
  if (target === undefined) return adv;
  first.payload = Buffer.from(
    `${text.slice(0, nul + 1)}${text.slice(nul + 1).replace(/\n$/, "")} symref=HEAD:${target}\n`,
    "utf8",
  );
  return Buffer.concat(lines.map(l => (l.payload === null ? Buffer.from("0000") : pkt(l.payload))));
}

export interface PktLine {
  payload: Buffer | null; // null = flush packet
}

export function pktLines(buf: Buffer): PktLine[] | undefined {
  const out: PktLine[] = [];
  for (let pos = 0; pos < buf.length; ) {
    const len = Number.parseInt(buf.subarray(pos, pos + 4).toString("latin1"), 16);
    if (Number.isNaN(len) || (len !== 0 && len < 4) || pos + Math.max(len, 4) > buf.length)
      return undefined;
    out.push({ payload: len === 0 ? null : Buffer.from(buf.subarray(pos + 4, pos + len)) });
    pos += len === 0 ? 4 : len;
  }
  return out;
}

export function pkt(payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, "0")), payload]);
}

/** HTTP status carried by an isomorphic-git HttpError, if any. */
export function httpStatus(err: unknown): number | undefined {
  if (err === null || typeof err !== "object" || !("data" in err)) return undefined;
  const data = (err as { data: unknown }).data;
  if (data !== null && typeof data === "object" && "statusCode" in data)
    return Number((data as { statusCode: unknown }).statusCode);
  return undefined;
}
