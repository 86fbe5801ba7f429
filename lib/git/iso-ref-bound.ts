// The ref advertisement (info/refs, for a fetch or a push) read for isomorphic-git within the ref
// limit: its bytes counted as they arrive, then its pkt-lines walked once as views of them, every
// line counted and its grammar checked before isomorphic-git parses it. A server listing
// millions of tags is cut after REF_LINE_BYTES per allowed ref, not the per-fetch limit; one
// sending a ref and then millions of lines that are no refs is refused as malformed; and
// isomorphic-git never builds its list.
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { REF_LINE_BYTES, tooManyRefs, type GitContentLimits } from "./content-limits";
import { GitStoreError, displayUrl } from "./errors";
import { once } from "./iso-http";
import { BadPktLine, pktLines } from "./pkt-line";
import { redact } from "./url-policy";

const ADVERTISEMENT = /\/info\/refs\?service=(git-(?:upload|receive)-pack)$/;

/** An oid, a space, a name: no control character, space or DEL (the line read as latin1). */
const REF = /^[0-9a-f]{40} [!-~\u0080-\u00ff]+$/;

/**
 * Whether `text` is a ref line: REF, on the first line a NUL and the capabilities (no NUL or LF
 * among them), and git's optional LF. A peeled tag (`<name>^{}`) is a ref line too, and so is
 * an empty repository's `<zero oid> capabilities^{}`.
 */
function isRefLine(text: string, first: boolean): boolean {
  const line = text.endsWith("\n") ? text.slice(0, -1) : text;
  const nul = line.indexOf("\0");
  if (nul < 0) return REF.test(line);
  return first && REF.test(line.slice(0, nul)) && !/[\n\0]/.test(line.slice(nul + 1));
}

/** An advertisement that is not one; the message names what is wrong, never the bytes. */
export class MalformedAdvertisement extends Error {}

/** More than the allowed ref lines. */
export class TooManyRefLines extends Error {}

/**
 * The number of ref lines of a smart HTTP (protocol v1) advertisement of `service`, checked to
 * be one: the service line, a flush, ref lines (capabilities on the first only), a flush, and
 * nothing after. Stops at the first line past `maxRefs` ref lines (TooManyRefLines), so no more
 * than maxRefs + 3 pkt-lines are ever walked.
 */
export function advertisedRefLines(adv: Buffer, service: string, maxRefs: number): number {
  const serviceLine = `# service=${service}`;
  let step: "service" | "flush" | "refs" | "end" = "service";
  let refs = 0;
  try {
    for (const { payload } of pktLines(adv)) {
      const text = payload?.toString("latin1");
      if (step === "service") {
        if (text?.replace(/\n$/, "") !== serviceLine)
          throw new MalformedAdvertisement("no service line");
        step = "flush";
      } else if (step === "flush") {
        if (text !== undefined) throw new MalformedAdvertisement("no flush after the service line");
        step = "refs";
      } else if (step === "refs") {
        if (text === undefined) step = "end";
        else if (!isRefLine(text, refs === 0))
          throw new MalformedAdvertisement("a line that is no ref");
        else if (++refs > maxRefs) throw new TooManyRefLines();
      } else throw new MalformedAdvertisement("a line after the final flush");
    }
  } catch (err) {
    if (err instanceof BadPktLine) throw new MalformedAdvertisement(err.message);
    throw err;
  }
  if (step === "service") throw new MalformedAdvertisement("no service line");
  if (step === "flush") throw new MalformedAdvertisement("no flush after the service line");
  if (step === "refs") throw new MalformedAdvertisement("no final flush");
  return refs;
}

/**
 * An HttpClient whose advertisements are refused past the ref limit (`tooManyRefs`) and when
 * they are no advertisement (Transport). Answers other than 200 go to isomorphic-git, which
 * reads only their status.
 */
export function refBoundedHttp(
  http: HttpClient,
  limits: GitContentLimits,
  repoUrl: string,
): HttpClient {
  const maxBytes = limits.maxRefs * REF_LINE_BYTES;
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const res = await http.request(req);
      const service = ADVERTISEMENT.exec(req.url)?.[1];
      if (service === undefined || res.body === undefined) return res;
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > maxBytes) throw tooManyRefs(redact(repoUrl), limits);
        chunks.push(chunk); // joined once below
      }
      const body = Buffer.concat(chunks);
      if (res.statusCode === 200) {
        try {
          advertisedRefLines(body, service, limits.maxRefs);
        } catch (err) {
          if (err instanceof TooManyRefLines) throw tooManyRefs(redact(repoUrl), limits);
          if (!(err instanceof MalformedAdvertisement)) throw err;
          throw new GitStoreError(
            "Transport",
            `git server ${displayUrl(repoUrl)} sent a malformed ref advertisement (${err.message})`,
          );
        }
      }
      return { ...res, body: once(body) };
    },
  };
}
