// The upload-pack answer of an isomorphic-git fetch, scanned (pack-scan.ts) before isomorphic-git
// reads it: an answer whose pack breaks an inflated-size limit fails the request itself, so
// isomorphic-git writes no ref and indexes no object of it. The answer is already whole in
// memory (at most the per-fetch limit) when isomorphic-git indexes it; here it is so a little
// sooner.
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { GitStoreError } from "./errors";
import { bytes, once } from "./iso-http";
import { overLimit, type GitContentLimits } from "./content-limits";
import { scanPack, type PackScan } from "./pack-scan";
import { redact } from "./url-policy";

const UPLOAD_PACK = /\/git-upload-pack$/;

/** A fetch refused for its pack; `scan` says how far the scan went (tests read it). */
export class PackTooLargeError extends GitStoreError {
  constructor(
    message: string,
    readonly scan: PackScan,
  ) {
    super("ContentTooLarge", message);
  }
}

/** An HttpClient that scans every upload-pack answer of `http` against `limits`. */
export function packScanningHttp(
  http: HttpClient,
  limits: GitContentLimits,
  repoUrl: string,
  signal?: AbortSignal,
): HttpClient {
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const res = await http.request(req);
      if (!UPLOAD_PACK.test(req.url) || res.statusCode !== 200 || res.body === undefined)
        return res;
      const body = await bytes(res.body);
      const result = await scanPack(sideBandPack(body), limits, signal);
      if (!result.ok) {
        const server = `git server ${redact(repoUrl)}`;
        if (result.limit === "malformed")
          throw new GitStoreError("Transport", `${server} sent a malformed pack: ${result.why}`);
        throw new PackTooLargeError(
          `${server} sent a pack ${overLimit(result.limit, limits)}: ${result.why}`,
          result.scan,
        );
      }
      return { ...res, body: once(body) };
    },
  };
}

/**
 * The pack data of an upload-pack answer, read as isomorphic-git's GitSideBand.demux reads it:
 * band 1 of each pkt-line until the answer ends, a band 3 error, or a line it cannot parse
 * (after which isomorphic-git fails the fetch). Exported for tests.
 */
export function sideBandPack(answer: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let pos = 0; pos + 4 <= answer.length; ) {
    const hex = answer.toString("latin1", pos, pos + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) break;
    const len = Number.parseInt(hex, 16);
    if (len === 0 || len === 1) {
      pos += 4;
      continue;
    }
    if (len < 4 || pos + len > answer.length) break;
    const band = answer[pos + 4];
    if (band === 3) break;
    if (band === 1 && len > 4) parts.push(answer.subarray(pos + 5, pos + len));
    pos += len;
  }
  return Buffer.concat(parts);
}
