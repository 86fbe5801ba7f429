// The upload-pack answer of an isomorphic-git fetch, stored here instead of by isomorphic-git.
// isomorphic-git would keep the answer, join its pack twice more and index it with every copy
// alive (about six bytes of memory per byte fetched). Here the pack goes to a temporary file as
// it arrives (iso-pack-receive.ts), is read back once, scanned against the content limits
// (pack-scan.ts) and indexed from that one buffer (iso-pack-index.ts, inflating off the event
// loop); then pack and index are moved into objects/pack, and isomorphic-git gets the answer without
// its pack (the ACK/NAK lines), so it writes the refs and stores nothing. A pack that breaks a
// limit fails the request itself: no ref is written and no object of it is kept.
import nodeFs from "node:fs";
import { open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import git, { type GitHttpRequest, type GitHttpResponse, type HttpClient } from "isomorphic-git";
import { GitStoreError } from "./errors";
import { once } from "./iso-http";
import { overLimit, type GitContentLimits } from "./content-limits";
import { scanPack, type PackScan } from "./pack-scan";
import { MalformedAnswer, answerWithoutPack, receiveAnswer } from "./iso-pack-receive";
import { UnindexablePack, packIndex } from "./iso-pack-index";
import { redact } from "./url-policy";

const UPLOAD_PACK = /\/git-upload-pack$/;
/** A pack's header and trailer: one with no object is not stored (as isomorphic-git does). */
const EMPTY_PACK_BYTES = 32;

/** A fetch refused for its pack; `scan` says how far the scan went (tests read it). */
export class PackTooLargeError extends GitStoreError {
  constructor(
    message: string,
    readonly scan: PackScan,
  ) {
    super("ContentTooLarge", message);
  }
}

/** Where fetched packs go: the cache's gitdir, and isomorphic-git's object cache for its reads. */
export interface PackStore {
  gitdir: string;
  cache: object;
}

/** An HttpClient that stores every upload-pack answer of `http` in `store`, within `limits`. */
export function packStoringHttp(
  http: HttpClient,
  store: PackStore,
  limits: GitContentLimits,
  repoUrl: string,
  signal?: AbortSignal,
): HttpClient {
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const res = await http.request(req);
      if (!UPLOAD_PACK.test(req.url) || res.statusCode !== 200 || res.body === undefined)
        return res;
      const server = `git server ${redact(repoUrl)}`;
      const lines = await storePack(res.body, store, limits, signal).catch((err: unknown) => {
        if (err instanceof MalformedAnswer)
          throw new GitStoreError("Transport", `${server} sent ${err.message}`);
        if (err instanceof UnindexablePack)
          throw new GitStoreError("Transport", `${server} sent a malformed pack: ${err.message}`);
        if (err instanceof Refused) {
          const { result } = err;
          if (result.limit === "malformed")
            throw new GitStoreError("Transport", `${server} sent a malformed pack: ${result.why}`);
          throw new PackTooLargeError(
            `${server} sent a pack ${overLimit(result.limit, limits)}: ${result.why}`,
            result.scan,
          );
        }
        throw err;
      });
      return { ...res, body: once(answerWithoutPack(lines)) };
    },
  };
}

type Refusal = Extract<Awaited<ReturnType<typeof scanPack>>, { ok: false }>;

class Refused extends Error {
  constructor(readonly result: Refusal) {
    super(result.why);
  }
}

/** Receives, scans and indexes the pack of `body`; returns the answer's other lines. */
async function storePack(
  body: AsyncIterable<Uint8Array>,
  store: PackStore,
  limits: GitContentLimits,
  signal?: AbortSignal,
): Promise<Buffer[]> {
  const dir = join(store.gitdir, "objects", "pack");
  await nodeFs.promises.mkdir(dir, { recursive: true });
  // "tmp_pack_": the name git gives a pack being received, which the cache-disk bound counts.
  const base = `tmp_pack_${randomBytes(8).toString("hex")}`;
  const tmp = join(dir, `${base}.pack`);
  const tmpIdx = join(dir, `${base}.idx`);
  try {
    const file = await open(tmp, "wx");
    let received;
    try {
      received = await receiveAnswer(body, file);
    } finally {
      await file.close();
    }
    if (received.packBytes <= EMPTY_PACK_BYTES) return received.lines;
    // The one copy of the pack in memory: scanned, then indexed from this same buffer.
    const pack = await readFile(tmp);
    const result = await scanPack(pack, limits, signal);
    if (!result.ok) throw new Refused(result);
    if (result.scan.objects === 0) return received.lines;
    const yieldNow = () =>
      new Promise<void>(resolve => setImmediate(resolve)).then(() => signal?.throwIfAborted());
    await writeFile(tmpIdx, await packIndex(pack, cachedObject(store), yieldNow));
    const name = join(dir, `pack-${pack.subarray(pack.length - 20).toString("hex")}`);
    // The pack first: isomorphic-git finds packs by their index.
    await rename(tmp, `${name}.pack`);
    await rename(tmpIdx, `${name}.idx`);
    return received.lines;
  } finally {
    await rm(tmp, { force: true });
    await rm(tmpIdx, { force: true });
  }
}

/** A ref-delta's base from the cache's objects (none: the pack must carry every base). */
function cachedObject(store: PackStore) {
  return async (oid: string) => {
    try {
      const { type, object } = await git.readObject({
        fs: nodeFs,
        gitdir: store.gitdir,
        cache: store.cache,
        oid,
        format: "content",
      });
      return { type, object: Buffer.from(object as Uint8Array) };
    } catch (err) {
      if (err instanceof git.Errors.NotFoundError) return undefined;
      throw err;
    }
  };
}
