// GitClient on isomorphic-git: pure JavaScript, runs in the stock Pepr controller image (no git
// binary). Push cost: a push of commits this client wrote sends exactly their new objects, found
// by reading only the paths they changed (iso-push.ts, iso-send-pack.ts). Any other push goes
// through isomorphic-git's, which only leaves out objects reachable from the remote's copy of the
// pushed ref or from refs/remotes/origin/HEAD, so that symref is first pointed at the repository
// branch (research/field.md §6; bench/git-clients.ts).
import fs from "node:fs";
import git, { type HttpClient } from "isomorphic-git";
import {
  ZERO_OID,
  authorizationHeader,
  secretsOf,
  type ClientOptions,
  type CommitInfo,
  type CommitSpec,
  type GitClient,
  type RefMap,
  type RefUpdate,
  type RefVerdicts,
  type TreeEntry,
} from "./client";
import { errorMessage } from "../errors";
import {
  GitStoreError,
  PushRejectedError,
  UNAVAILABLE_STATUSES,
  displayUrl,
  scrubSecrets,
} from "./errors";
import {
  httpStatus,
  httpWithHeadHint,
  recordingAdvertisement,
  replayingAdvertisement,
} from "./iso-http";
import { guardedHttpClient, timeoutError } from "./iso-transport";
import { packStoringHttp } from "./iso-pack-guard";
import { refBoundedHttp } from "./iso-ref-bound";
import { FetchHold, processFetchMemory } from "./fetch-memory";
import type { FairBudget } from "../controller/fair-budget";
import { gitNetworkFromEnv, limitsOf, type GitNetwork } from "./network";
import {
  ObjectTooLargeError,
  historyBytes,
  historyTooLarge,
  objectLimit,
  type ObjectLimit,
} from "./content-limits";
import { parseTree } from "./loose-objects";
import { storedObjectSize } from "./iso-object-size";
import { walkTree } from "./tree";
import { deleteLocalRef, localRefs, recordPushedRef, setThinPackHint } from "./iso-refs";
import { PackBudget, boundedIsoCache, processPackBudget, type PackCache } from "./iso-pack-cache";
import { objectsToPush } from "./iso-push";
import { AtomicUnsupported, sendPack, type LeasedUpdate } from "./iso-send-pack";
import type { AdvertisedRefs } from "./advertisement";
import { throwRefused } from "./push-batch";
import { fromIsoSignature, toIsoSignature } from "./commit-format";

/** A ref update the server refused because the ref is not where the push found it. */
const REMOTE_MOVED =
  /non-fast-forward|fetch first|stale info|already exists|failed to (update|lock)|rejected|atomic (transaction|push) failed/i;

/** The remote moved while a fetch ran; fetching again settles it. */
class RemoteMovedError extends Error {}

export class IsoGitClient implements GitClient {
  readonly kind = "isomorphic" as const;
  private readonly headers: Record<string, string>;
  private readonly secrets: string[];
  /** isomorphic-git's object cache: its loaded packs, within the process's pack budget. */
  private readonly cache: object;
  private readonly packs: PackCache;
  /** Commits the remote is known to have (last fetch plus what we pushed since). */
  private readonly remoteHas = new Set<string>();
  /** Commits this client wrote: what a push may have to carry. */
  private readonly written = new Set<string>();
  private branchExists = false;
  private readonly peeled = new Map<string, string>();
  private readonly network: GitNetwork;

  constructor(
    private readonly opts: ClientOptions & {
      thinPackHint?: boolean;
      /** A budget of this client's own instead of the process's (PORCH_PEPR_GIT_PACK_CACHE_BYTES). */
      packCacheBytes?: number;
      /** A fetch memory of this client's own instead of the process's (fetch-memory.ts). */
      fetchMemory?: FairBudget;
    },
  ) {
    const auth = authorizationHeader(opts.credentials);
    this.headers = auth === undefined ? {} : { Authorization: auth };
    this.secrets = secretsOf(opts.credentials);
    this.network = opts.network ?? gitNetworkFromEnv(process.env);
    const budget =
      opts.packCacheBytes === undefined ? processPackBudget() : new PackBudget(opts.packCacheBytes);
    this.packs = budget.newCache();
    this.cache = boundedIsoCache(this.packs);
  }

  private get base() {
    return { fs, gitdir: this.opts.gitdir, cache: this.cache };
  }

  private remote(http: HttpClient) {
    // Credentials go in a header on every request; a 401 is final (no prompt, no retry loop).
    return {
      http,
      url: this.opts.url,
      headers: this.headers,
      onAuthFailure: () => ({ cancel: true }),
    };
  }

  async init(): Promise<void> {
    if (fs.existsSync(`${this.opts.gitdir}/HEAD`)) return;
    await git.init({ fs, gitdir: this.opts.gitdir, bare: true });
    await git.addRemote({
      fs,
      gitdir: this.opts.gitdir,
      remote: "origin",
      url: this.opts.url,
      force: true,
    });
  }

  async fetch(): Promise<RefMap> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.fetchOnce();
      } catch (err) {
        // A ref left without its objects (the remote moved while an earlier fetch ran). The
        // fetch's own ref discovery replays the listing, so the two can no longer disagree.
        const moved = err instanceof RemoteMovedError;
        if (attempt >= 3 || !moved) throw err;
      }
    }
  }

  private async fetchOnce(): Promise<RefMap> {
    const wanted = await this.net("fetch", async http => {
      const recorder = recordingAdvertisement(http);
      const advertised = await git.listServerRefs({
        ...this.remote(recorder.http),
        protocolVersion: 1,
      });
      const remote = new Map(
        advertised
          .filter(r => r.ref.startsWith("refs/heads/") || r.ref.startsWith("refs/tags/"))
          .map(r => [r.ref, r.oid]),
      );
      const before = await localRefs(this.opts.gitdir);
      // Refs gone from the remote go; a moved tag too, as isomorphic-git writes a tag only when
      // the cache has none of that name.
      for (const [ref, oid] of before)
        if (remote.get(ref) !== oid && (!remote.has(ref) || ref.startsWith("refs/tags/")))
          await deleteLocalRef(this.opts.gitdir, ref);
      const changed = [...remote].filter(([ref, oid]) => before.get(ref) !== oid).map(([r]) => r);
      const adv = recorder.taken();
      if (changed.length === 0 || adv === undefined) return remote;
      const branch = `refs/heads/${this.opts.branch}`;
      const fetched = new Set(changed);
      await git.fetch({
        ...this.base,
        ...this.remote(replayingAdvertisement(http, adv, ref => fetched.has(ref))),
        remote: "origin",
        remoteRef: fetched.has(branch) ? branch : changed[0],
        singleBranch: false,
        tags: true,
      });
      return remote;
    });
    // The cache now stores these refs; peeling each proves its objects are here (a fetch that
    // raced a push, or failed after writing refs, may have left a ref without them).
    const refs: RefMap = new Map();
    this.remoteHas.clear();
    for (const [ref, oid] of wanted) {
      let commit: string;
      try {
        commit = await this.peel(oid);
      } catch (err) {
        if (!(err instanceof git.Errors.NotFoundError)) throw err;
        // A ref to an object this fetch did not bring (seen when the remote moves during the
        // fetch): drop it, so the next fetch fetches it again.
        await deleteLocalRef(this.opts.gitdir, ref);
        throw new RemoteMovedError(`${ref} points at ${oid}, which the fetch did not bring`);
      }
      refs.set(ref, { oid, commit });
      this.remoteHas.add(commit);
    }
    this.branchExists = refs.has(`refs/heads/${this.opts.branch}`);
    return refs;
  }

  /** The commit an annotated tag points at (the oid itself for anything else); memoised. */
  private async peel(oid: string): Promise<string> {
    const memo = this.peeled.get(oid);
    if (memo !== undefined) return memo;
    let current = oid;
    for (let depth = 0; depth < 5; depth++) {
      await this.storedWithin(current, "tag");
      const { type, object } = await git.readObject({
        ...this.base,
        oid: current,
        format: "parsed",
      });
      if (type !== "tag") break;
      current = (object as { object: string }).object;
    }
    if (this.peeled.size >= 10000) this.peeled.clear();
    this.peeled.set(oid, current);
    return current;
  }

  async push(updates: RefUpdate[]): Promise<void> {
    throwRefused(await this.pushRefs(updates), this.opts.url);
  }

  /**
   * Not atomic: the updates whose objects are known (commits this client wrote) go in one
   * receive-pack request, a command each; any other through isomorphic-git's push, one by one.
   * The store orders a writer's updates so an interrupted sequence is recoverable by a retry.
   */
  async pushRefs(
    updates: RefUpdate[],
    atomic = false,
    heard?: (refs: AdvertisedRefs) => void,
  ): Promise<RefVerdicts> {
    if (atomic && updates.length > 1) {
      try {
        return await this.pushDirect(updates, true, heard);
      } catch (err) {
        if (!(err instanceof AtomicUnsupported)) throw err;
      }
      // All or none, short of the server's help: one at a time, in order, up to a refusal.
      const verdicts: RefVerdicts = new Map();
      for (const u of updates) {
        const refused = [...verdicts.values()].some(v => v !== undefined);
        if (refused) verdicts.set(u.ref, { moved: true, says: "not sent: atomic push failed" });
        else for (const [ref, v] of await this.pushDirect([u], false)) verdicts.set(ref, v);
      }
      return verdicts;
    }
    return this.pushDirect(updates, false, heard);
  }

  /**
   * The updates whose objects are known in one request (atomic: all of them, or AtomicUnsupported
   * when that needs isomorphic-git's own push or the server cannot); the rest one by one.
   */
  private async pushDirect(
    updates: RefUpdate[],
    atomic: boolean,
    heard?: (refs: AdvertisedRefs) => void,
  ): Promise<RefVerdicts> {
    const verdicts: RefVerdicts = new Map();
    const direct: LeasedUpdate[] = [];
    const objects = new Set<string>();
    const walked: RefUpdate[] = [];
    for (const u of updates) {
      const expect = u.expect === undefined && u.ref.startsWith("refs/tags/") ? null : u.expect;
      const found =
        expect === undefined || u.oid === null
          ? []
          : await objectsToPush(
              this,
              u.oid,
              c => this.remoteHas.has(c),
              c => this.written.has(c),
            );
      if (expect === undefined || found === undefined) walked.push(u);
      else {
        direct.push({ ...u, expect });
        for (const o of found) objects.add(o);
      }
    }
    if (atomic && walked.length > 0) throw new AtomicUnsupported();
    if (direct.length > 0) {
      const refused = await this.net("push", http =>
        sendPack(
          this.remote(http),
          this.opts.gitdir,
          this.cache,
          direct,
          [...objects],
          atomic,
          // Only a push sent whole here: the others' pushes (walked) come after what it heard.
          walked.length === 0 ? heard : undefined,
        ),
      );
      for (const u of direct) {
        const r = refused.get(u.ref);
        if (r?.stage === "unpack")
          throw new GitStoreError(
            "Transport",
            `git push (${displayUrl(this.opts.url)}) failed: ${scrubSecrets(r.says, this.secrets)}`,
          );
        if (r === undefined) {
          verdicts.set(u.ref, undefined);
          await this.landed(u);
          continue;
        }
        // A lease that no longer holds, or a ref the server could not move: the remote moved.
        const says = scrubSecrets(r.says, this.secrets);
        verdicts.set(u.ref, { moved: r.stage === "lease" || REMOTE_MOVED.test(says), says });
      }
    }
    for (const u of walked) {
      try {
        await this.isoPush(u);
        verdicts.set(u.ref, undefined);
        await this.landed(u);
      } catch (err) {
        if (!(err instanceof PushRejectedError)) throw err;
        verdicts.set(u.ref, { moved: true, says: err.message });
      }
    }
    return verdicts;
  }

  private async landed(u: RefUpdate): Promise<void> {
    await recordPushedRef(this.opts.gitdir, u.ref, u.oid);
    if (u.oid !== null) this.remoteHas.add(u.oid);
  }

  /**
   * isomorphic-git's own push, for an update whose objects only a full walk finds (history this
   * client did not write, or plain fast-forward rules).
   */
  private async isoPush(u: RefUpdate): Promise<void> {
    // The base hint costs a walk of the branch tree; only worth it when objects must be sent.
    const hint =
      u.oid !== null &&
      !this.remoteHas.has(u.oid) &&
      this.opts.thinPackHint !== false &&
      this.branchExists;
    await setThinPackHint(this.opts.gitdir, hint ? this.opts.branch : undefined);
    await this.pushOne(u);
  }

  private async pushOne(u: RefUpdate): Promise<void> {
    let refused: string | undefined;
    const expect = u.expect === undefined && u.ref.startsWith("refs/tags/") ? null : u.expect;
    try {
      await this.net("push", http =>
        git.push({
          ...this.base,
          ...this.remote(http),
          ref: u.oid ?? ZERO_OID,
          remoteRef: u.ref,
          delete: u.oid === null,
          force: expect !== undefined,
          // Compare-and-swap: the server also checks the advertised old value we send back.
          onPrePush: ({ remoteRef }) => {
            if (expect === undefined || remoteRef.oid === (expect ?? ZERO_OID)) return true;
            refused = `${u.ref} is at ${remoteRef.oid.slice(0, 12)}, expected ${expect === null ? "no ref" : expect.slice(0, 12)}`;
            return false;
          },
        }),
      );
    } catch (err) {
      if (refused !== undefined)
        throw new PushRejectedError(
          `push to ${displayUrl(this.opts.url)} was rejected: ${refused}`,
        );
      if (
        err instanceof GitStoreError &&
        err.code === "Transport" &&
        /PushRejected|not-fast-forward|tag-exists|failed to (update|lock)|rejected/i.test(
          err.message,
        )
      ) {
        throw new PushRejectedError(err.message);
      }
      throw err;
    }
  }

  async readTree(treeOid: string): Promise<TreeEntry[]> {
    // The object's bytes, parsed as the CLI parses them: isomorphic-git's readTree would build
    // every entry before its count could be checked.
    const limits = limitsOf(this.network);
    const limit = await this.storedWithin(treeOid, "tree");
    const { type, object } = await git.readObject({
      ...this.base,
      oid: treeOid,
      format: "content",
    });
    if (type !== "tree")
      throw new GitStoreError("Transport", `git object ${treeOid} is a ${type}, expected a tree`);
    const body = object as Buffer;
    if (body.length > limit.bytes) throw new ObjectTooLargeError(treeOid, body.length, limit);
    return parseTree(body, treeOid, limits.maxTreeEntries);
  }

  /**
   * The limit of `type` (objectLimit), once the stored size of `oid` is known to be within it:
   * isomorphic-git inflates an object whole before telling its size.
   */
  private async storedWithin(oid: string, type: string): Promise<ObjectLimit> {
    const limit = objectLimit(type, limitsOf(this.network));
    const size = await storedObjectSize(this.opts.gitdir, oid, this.packs);
    if (size !== undefined && size > limit.bytes) throw new ObjectTooLargeError(oid, size, limit);
    return limit;
  }

  listTree(treeOid: string): Promise<TreeEntry[]> {
    return walkTree(this, treeOid, limitsOf(this.network));
  }

  async readBlobs(oids: string[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    for (const oid of oids) {
      const limit = await this.storedWithin(oid, "blob");
      const { blob } = await git.readBlob({ ...this.base, oid });
      if (blob.length > limit.bytes) throw new ObjectTooLargeError(oid, blob.length, limit);
      out.set(oid, Buffer.from(blob));
    }
    return out;
  }

  async writeBlobs(contents: Buffer[]): Promise<string[]> {
    const oids: string[] = [];
    for (const blob of contents)
      oids.push(await git.writeBlob({ fs, gitdir: this.opts.gitdir, blob }));
    return oids;
  }

  writeTree(entries: TreeEntry[]): Promise<string> {
    return git.writeTree({ fs, gitdir: this.opts.gitdir, tree: entries.map(e => ({ ...e })) });
  }

  async readCommit(oid: string): Promise<CommitInfo> {
    const limit = await this.storedWithin(oid, "commit");
    const { commit, payload } = await git.readCommit({ ...this.base, oid });
    // The signature is not in the payload: held to the limit the CLI reads by, whole.
    const size = Buffer.byteLength(payload) + Buffer.byteLength(commit.gpgsig ?? "");
    if (size > limit.bytes) throw new ObjectTooLargeError(oid, size, limit);
    return {
      oid,
      tree: commit.tree,
      parents: commit.parent,
      message: commit.message,
      author: fromIsoSignature(commit.author),
      committer: fromIsoSignature(commit.committer),
    };
  }

  async log(oid: string, max: number): Promise<CommitInfo[]> {
    const limits = limitsOf(this.network);
    const out: CommitInfo[] = [];
    let bytes = 0;
    for (let next: string | undefined = oid; next !== undefined && out.length < max; ) {
      const commit = await this.readCommit(next);
      bytes += Buffer.byteLength(commit.message);
      if (bytes > historyBytes(limits)) throw historyTooLarge(oid, limits);
      out.push(commit);
      next = commit.parents[0];
    }
    return out;
  }

  close(): void {
    // Nothing runs in the background; the packs go back to the budget (read again on next use).
    this.packs.clear();
  }

  async writeCommit(spec: CommitSpec): Promise<string> {
    const commit = {
      tree: spec.tree,
      parent: spec.parents,
      message: spec.message,
      author: toIsoSignature(spec.author),
      committer: toIsoSignature(spec.committer),
    };
    const oid = await git.writeCommit({ fs, gitdir: this.opts.gitdir, commit });
    // Bounded: a commit forgotten here is pushed by isomorphic-git's full walk instead.
    if (this.written.size >= 10_000) this.written.clear();
    this.written.add(oid);
    return oid;
  }

  /**
   * Runs a network call under the total timeout, mapping isomorphic-git errors to scrubbed
   * store errors that never quote what the server answered.
   */
  private async net<T>(op: string, call: (http: HttpClient) => Promise<T>): Promise<T> {
    const { network } = this;
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          timeoutError(`git ${op} took longer than ${network.timeouts.totalMs} ms`, this.opts.url),
        ),
      network.timeouts.totalMs,
    );
    const hold = new FetchHold(
      this.opts.fetchMemory ?? processFetchMemory(),
      this.opts.namespace ?? "",
      displayUrl(this.opts.url),
    );
    try {
      const guarded = guardedHttpClient(network, deadline.signal, this.opts.url, hold);
      // Every pack is scanned and stored here; isomorphic-git only writes the refs.
      const packs = packStoringHttp(
        guarded,
        { gitdir: this.opts.gitdir, cache: this.cache },
        limitsOf(network),
        this.opts.url,
        deadline.signal,
      );
      // Every advertisement is counted before isomorphic-git lists its refs (iso-ref-bound.ts).
      const http = refBoundedHttp(packs, limitsOf(network), this.opts.url);
      return await call(httpWithHeadHint(http, this.opts.branch));
    } catch (err) {
      if (err instanceof AtomicUnsupported) throw err; // the caller pushes otherwise
      const status = httpStatus(err);
      if (status === 401 || status === 403) {
        throw new GitStoreError(
          "Auth",
          `authentication to ${displayUrl(this.opts.url)} failed (HTTP ${status} on ${op}); check the repository credentials`,
        );
      }
      if (err instanceof GitStoreError) throw err;
      throw new GitStoreError(
        isoUnavailable(err) ? "Unavailable" : "Transport",
        scrubSecrets(
          `git ${op} (${displayUrl(this.opts.url)}) failed: ${isoFailure(err)}`,
          this.secrets,
        ),
      );
    } finally {
      clearTimeout(timer);
      // isomorphic-git holds no answer past the operation: its bytes go back to the budget.
      hold.release();
    }
  }
}

/**
 * isomorphic-git errors whose message is its own text, not the server's: kept. Any other error
 * of isomorphic-git (HttpError, SmartHttpError and ParseError quote the response body or the
 * status line) is named by its code only.
 */
const OWN_MESSAGES = new Set([
  "NotFoundError",
  "GitPushError",
  "PushRejectedError",
  "AlreadyExistsError",
  "CommitNotFetchedError",
  "FastForwardError",
  "MaxDepthError",
  "UserCanceledError",
]);

/** Node's words for a connection refused, reset or cut short: the server is not there now. */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ERR_STREAM_PREMATURE_CLOSE",
  // isomorphic-git's name for an answer that ended before it began (a server gone mid-answer)
  "EmptyServerResponseError",
]);

/**
 * Whether a failed isomorphic-git network call met a server that could not be reached or went
 * away mid-answer, or a 502/503/504. Exported for tests.
 */
export function isoUnavailable(err: unknown): boolean {
  // Node and undici wrap a socket error once or twice; a chain deeper than this, or one that
  // loops, is no network failure we know.
  for (let at = err, depth = 0; depth < MAX_CAUSE_DEPTH; depth++) {
    const status = httpStatus(at);
    if (status !== undefined) return UNAVAILABLE_STATUSES.includes(status);
    // Duck-typed: a socket error may come from another realm (a test runner's) than Error here.
    if (at === null || typeof at !== "object") return false;
    const { code, cause } = at as { code?: unknown; cause?: unknown };
    if (UNAVAILABLE_CODES.has(String(code))) return true;
    at = cause;
  }
  return false;
}

const MAX_CAUSE_DEPTH = 8;

/** What the message of a failed isomorphic-git network call may say. Exported for tests. */
export function isoFailure(err: unknown): string {
  const status = httpStatus(err);
  if (status !== undefined) {
    return status >= 300 && status < 400
      ? `HTTP ${status}: the server redirects elsewhere and redirects are not followed; use the final URL`
      : `HTTP ${status}`;
  }
  if (!(err instanceof Error))
    return isoUnavailable(err)
      ? `${String((err as { code?: unknown }).code)}: the server could not be reached or went away mid-answer`
      : "unknown error";
  const code = "code" in err ? String((err as { code: unknown }).code) : "";
  // Node's own socket errors (ECONNREFUSED, ENOTFOUND, ...) name the address, nothing received.
  if ("syscall" in err && /^E[A-Z]+$/.test(code)) return `${code}: ${err.message}`;
  if (code === "SmartHttpError" || code === "ParseError" || code === "EmptyServerResponseError")
    return `the server did not answer as a git smart HTTP server (${code})`;
  if (OWN_MESSAGES.has(code)) return `${code}: ${errorMessage(err).slice(0, 500)}`;
  return code ? `${code}` : err.name;
}
