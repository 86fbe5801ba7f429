// isomorphic-git's HTTP client, with one repair: when a remote's HEAD names a missing branch (an
// empty repository's default branch while porch created another one), isomorphic-git's fetch
// writes the refs and then throws before it stores the packfile. Adding the `symref=HEAD:<branch>`
// capability to the ref advertisement gives it the default branch it looks for.
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";

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

interface PktLine {
  payload: Buffer | null; // null = flush packet
}

function pktLines(buf: Buffer): PktLine[] | undefined {
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

function pkt(payload: Buffer): Buffer {
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
