// The ref advertisement (info/refs, for a fetch or a push) read for isomorphic-git within the ref
// limit: its bytes counted as they arrive, its ref lines before isomorphic-git parses them. A
// server listing millions of tags is cut after REF_LINE_BYTES per allowed ref, not the per-fetch
// limit, and isomorphic-git never builds its list.
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { REF_LINE_BYTES, tooManyRefs, type GitContentLimits } from "./content-limits";
import { once, pktLines } from "./iso-http";
import { redact } from "./url-policy";

const ADVERTISEMENT = /\/info\/refs\?service=git-(upload|receive)-pack$/;

/** Ref lines of an advertisement (an oid, a space, a name), peeled tag lines included. */
export function refLineCount(adv: Buffer): number {
  let count = 0;
  for (const line of pktLines(adv) ?? [])
    if (line.payload !== null && /^[0-9a-f]{40} /.test(line.payload.toString("latin1"))) count++;
  return count;
}

/** An HttpClient whose advertisements are refused past the ref limit (`tooManyRefs`). */
export function refBoundedHttp(
  http: HttpClient,
  limits: GitContentLimits,
  repoUrl: string,
): HttpClient {
  const maxBytes = limits.maxRefs * REF_LINE_BYTES;
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const res = await http.request(req);
      if (!ADVERTISEMENT.test(req.url) || res.body === undefined) return res;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > maxBytes) throw tooManyRefs(redact(repoUrl), limits);
        chunks.push(Buffer.from(chunk));
      }
      const body = Buffer.concat(chunks);
      if (refLineCount(body) > limits.maxRefs) throw tooManyRefs(redact(repoUrl), limits);
      return { ...res, body: once(body) };
    },
  };
}
