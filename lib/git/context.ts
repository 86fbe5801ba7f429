// Per-repository state shared by the store's operations: the git client, the fetched refs, the
// per-cache lock, and the retry loop that turns a rejected push into refetch-and-redo.
import { createHash } from "node:crypto";
import { onlyPushedMoved, type AdvertisedRefs } from "./advertisement";
import { join } from "node:path";
import {
  defaultClientKind,
  type GitClient,
  type RefMap,
  type RefUpdate,
  type Signature,
} from "./client";
import { CliGitClient } from "./cli-client";
import { signatureNow } from "./commit-format";
import { Discovery, revisionRefCount } from "./discovery";
import { GitStoreError, PushRejectedError, displayUrl } from "./errors";
import { IsoGitClient } from "./iso-client";
import {
  HEADS,
  INITIAL_COMMIT_MESSAGE,
  INITIAL_README,
  PORCH_SIGNATURE,
  trimSlashes,
} from "./layout";
import { withLock } from "./mutex";
import { evictions, processCacheDisk } from "./cache-disk";
import { PushBatcher, batchLimitsFromEnv, type Stage } from "./push-batch";
import { assertUrlAllowed, limitsOf, type GitNetwork } from "./network";
import { revisionCountProblem, type GitContentLimits } from "./content-limits";
import { selectRevision } from "./revision-rank";
import { processPackageMemo } from "./package-memo";
import { buildTree, readFiles } from "./tree";
import type {
  GitCredentials,
  PackageRevisionInfo,
  PackageRevisionKey,
  RepositoryConfig,
  StoreOptions,
} from "./types";

export interface NormalizedConfig {
  url: string; // without userinfo
  branch: string;
  directory: string;
  createBranch: boolean;
  credentials?: GitCredentials;
  author: { name: string; email: string };
}

/**
 * The config with defaults applied; throws URLNotAllowed when the URL policy refuses the URL
 * (credentials in the URL included: they belong in secretRef, and would otherwise travel to
 * the Kptfile, git and status wherever the URL is written).
 */
export function normalizeConfig(config: RepositoryConfig, network: GitNetwork): NormalizedConfig {
  assertUrlAllowed(config.url, network.policy);
  const url = config.url;
  const credentials = config.credentials;
  // As the reference: with only one of author/email set, it stands in for the other.
  const name = config.author?.name || config.author?.email || PORCH_SIGNATURE.name;
  const email = config.author?.email || config.author?.name || PORCH_SIGNATURE.email;
  return {
    url,
    branch: config.branch || "main",
    directory: trimSlashes(config.directory ?? ""),
    createBranch: config.createBranch === true,
    credentials,
    author: { name, email },
  };
}

export function cacheDirFor(cacheRoot: string, url: string): string {
  const slug = url
    .replace(/^[a-z]+:\/\//i, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .slice(0, 60);
  return join(cacheRoot, `${slug}-${createHash("sha256").update(url).digest("hex").slice(0, 12)}`);
}

export class RepoContext {
  readonly client: GitClient;
  readonly discovery: Discovery;
  readonly cacheDir: string;
  private refs: RefMap | undefined;
  /** currentRefs() of the last call, while neither the fetched refs nor the queue changed. */
  private overlay: { base: RefMap; version: number; refs: RefMap } | undefined;
  private readonly batcher: PushBatcher;
  /** What the server advertised to the batch being pushed. */
  private heard: AdvertisedRefs | undefined;
  private lastFetch = 0;
  /** Fetches done (sync), to tell whether one happened since a push was refused. */
  private fetches = 0;
  private initialised = false;
  /** The cache's eviction count when this context last used it (cache-disk.ts). */
  private seenEvictions: number;
  /** The refs the cache's disk use was last measured with: unchanged refs, unchanged disk. */
  private measuredRefs: string | undefined;
  /** What reads of this repository's content may take. */
  readonly limits: GitContentLimits;

  constructor(
    readonly config: NormalizedConfig,
    readonly options: StoreOptions,
    network: GitNetwork,
  ) {
    this.cacheDir = cacheDirFor(options.cacheRoot, config.url);
    const clientOpts = {
      gitdir: this.cacheDir,
      url: config.url,
      credentials: config.credentials,
      branch: config.branch,
      network,
      namespace: options.namespace,
    };
    const kind = options.client ?? defaultClientKind();
    this.client = kind === "cli" ? new CliGitClient(clientOpts) : new IsoGitClient(clientOpts);
    this.limits = limitsOf(network);
    this.discovery = new Discovery(this.client, this.limits, this.cacheDir);
    this.batcher = new PushBatcher(
      options.pushBatch ?? batchLimitsFromEnv(process.env),
      config.url,
      batch => this.runBatch(batch),
      (updates, atomic) => this.client.pushRefs(updates, atomic, refs => (this.heard = refs)),
      options.pushLinger,
    );
    this.seenEvictions = evictions(this.cacheDir);
  }

  /** Under the lock: after an eviction of the cache, start over as a new context would. */
  private checkEvicted(): void {
    const now = evictions(this.cacheDir);
    if (now === this.seenEvictions) return;
    this.seenEvictions = now;
    this.client.close();
    this.initialised = false;
    this.refs = undefined;
    this.measuredRefs = undefined;
  }

  /** Under the lock, after a fetch: measures the cache when its refs moved (cache-disk.ts). */
  private async measure(refs: RefMap): Promise<void> {
    let key = "";
    for (const [ref, { oid }] of refs) key += `${ref} ${oid}\n`;
    if (key === this.measuredRefs) return;
    this.measuredRefs = key;
    await processCacheDisk().measured(this.cacheDir, this.options.namespace ?? "");
  }

  /** Under the lock: after an eviction of the cache, fetches it again. */
  async refetchIfEvicted(): Promise<void> {
    this.checkEvicted();
    if (this.refs === undefined) await this.sync();
  }

  /** What a write changed on disk is measured with the next fetch. */
  wrote(): void {
    this.measuredRefs = undefined;
  }

  get branchRef(): string {
    return `${HEADS}${this.config.branch}`;
  }

  /** Whether the fetched refs are older than readFreshnessMs (or were never fetched). */
  private stale(): boolean {
    return (
      this.refs === undefined || Date.now() - this.lastFetch >= (this.options.readFreshnessMs ?? 0)
    );
  }

  /** Serialised read: refetches when `fresh` or the last fetch is older than readFreshnessMs. */
  read<T>(op: () => Promise<T>, fresh = false): Promise<T> {
    return withLock(this.cacheDir, async () => {
      this.checkEvicted();
      if (fresh || this.stale()) await this.sync();
      return op();
    });
  }

  /**
   * Serialised write: `plan` runs on the refs (refetched first when stale) and returns its ref
   * updates, stage by stage; they go in the repository's next batched push (push-batch.ts),
   * with the lock released meanwhile so other writers' updates join that push. Once they
   * landed, `then` runs on the refs that include them. On a rejected push: refetch and plan
   * again (bounded). Every update carries a lease on the ref it moves, so a base that another
   * writer has moved on costs one rejected push, never a lost commit.
   */
  async write<T>(plan: () => Promise<Stage[]>, then: () => Promise<T>): Promise<T> {
    const max = Math.max(1, this.options.maxPushAttempts ?? 8);
    // The fetch count when this writer's push was refused: a fetch since then (another
    // refused writer's) shows what refused it, so the writers of a refused batch fetch once.
    let refusedAt: number | undefined;
    for (let attempt = 1; ; attempt++) {
      const { landed } = await withLock(this.cacheDir, async () => {
        this.checkEvicted();
        if (this.fetches === refusedAt || this.stale()) await this.sync();
        // Wrapped: the lock is released before the push this waits for (it needs the lock).
        return { landed: this.batcher.submit(await plan()) };
      });
      try {
        await landed;
        return await withLock(this.cacheDir, then);
      } catch (err) {
        if (!(err instanceof PushRejectedError)) throw err;
        refusedAt = this.fetches;
        if (attempt >= max) {
          throw new GitStoreError(
            "Conflict",
            `gave up after ${max} attempts because ${displayUrl(this.config.url)} kept changing: ${err.message}`,
          );
        }
        this.options.log?.debug("push rejected; refetching and retrying", {
          attempt,
          url: displayUrl(this.config.url),
        });
        // The first retry at once: the writers of a refused batch plan again together, in
        // their order (a publish chain keeps its revision numbers). Then exponential backoff
        // with full jitter: a writer that keeps losing the race to a faster one waits it out.
        if (attempt > 1)
          await new Promise(r =>
            setTimeout(r, 10 + Math.random() * Math.min(2_000, 25 * 2 ** attempt)),
          );
      }
    }
  }

  /** A lingering batch asks again whether writers are on their way (push-batch.ts). */
  reconsiderPush(): void {
    this.batcher.reconsider();
  }

  /** One batch of the queued updates, under the lock; the fetched refs take what landed. */
  private runBatch(batch: () => Promise<RefUpdate[]>): void {
    void withLock(this.cacheDir, async () => {
      this.heard = undefined;
      const landed = await batch();
      if (landed.length > 0) this.wrote();
      const refs = this.refs;
      if (refs === undefined) return;
      // The push's advertisement serves as a fetch: nothing moved but what landed, and the
      // refs are as fresh as the push; something else moved, and the next operation fetches.
      const heard = this.heard as AdvertisedRefs | undefined;
      const fresh =
        heard !== undefined && onlyPushedMoved(refs, heard, new Set(landed.map(u => u.ref)));
      if (heard !== undefined) this.lastFetch = fresh ? Date.now() : 0;
      for (const u of landed) {
        if (u.oid === null) refs.delete(u.ref);
        else refs.set(u.ref, { oid: u.oid, commit: u.oid });
      }
      this.overlay = undefined;
      // In place of the fetch it saves: the cache's disk use is measured after a fetch.
      if (fresh) await this.measure(refs);
    });
  }

  /** Fetches every ref without requiring the repository branch (raw git sources). Holds the lock. */
  fetchAll(): Promise<RefMap> {
    return withLock(this.cacheDir, async () => {
      this.checkEvicted();
      await this.ensureInit();
      this.refs = await this.client.fetch();
      this.lastFetch = Date.now();
      await this.measure(this.refs);
      return this.refs;
    });
  }

  private async ensureInit(): Promise<void> {
    if (!this.initialised) {
      await this.client.init();
      this.initialised = true;
    }
  }

  /** Unserialised: callers hold the lock (inside read/write). */
  async sync(): Promise<RefMap> {
    await this.ensureInit();
    this.refs = await this.client.fetch();
    this.lastFetch = Date.now();
    this.fetches++;
    await this.measure(this.refs);
    if (!this.refs.has(this.branchRef)) await this.createBranchOrFail();
    return this.refs;
  }

  /**
   * The fetched refs with the queued updates applied (what the next push will make of them):
   * writers plan on what is queued, so theirs chain onto it instead of colliding.
   */
  currentRefs(): RefMap {
    if (this.refs === undefined)
      throw new GitStoreError("Transport", "repository has not been fetched yet");
    if (!this.batcher.pending) return this.refs;
    if (this.overlay?.base === this.refs && this.overlay.version === this.batcher.version)
      return this.overlay.refs;
    const refs = new Map(this.refs);
    for (const [ref, oid] of this.batcher.queuedRefs()) {
      if (oid === null) refs.delete(ref);
      else refs.set(ref, { oid, commit: oid });
    }
    this.overlay = { base: this.refs, version: this.batcher.version, refs };
    return refs;
  }

  branchHead(): string {
    const head = this.currentRefs().get(this.branchRef);
    if (head === undefined) throw this.branchMissing();
    return head.commit;
  }

  /**
   * The revisions of one package, or of every package: that whole listing (a Repository's sync)
   * throws TooManyRevisions over the cap, counted from the refs before any is read (a flood of
   * tags costs no reads) and again as listed (the branch's packages count too).
   */
  async listPackage(packageName?: string): Promise<PackageRevisionInfo[]> {
    const refs = this.currentRefs();
    const scope = { branch: this.config.branch, directory: this.config.directory, packageName };
    if (packageName !== undefined) return this.discovery.list(refs, scope);
    this.checkRevisionCount(
      revisionRefCount(refs.keys(), scope.directory),
      "refs that may name package revisions",
    );
    const all = await this.discovery.list(refs, scope);
    this.checkRevisionCount(all.length);
    return all;
  }

  private checkRevisionCount(count: number, what?: string): void {
    const problem = revisionCountProblem(count, this.limits, what);
    if (problem) throw new GitStoreError("TooManyRevisions", problem);
  }

  /** The revision for package + workspace as selectRevision ranks them, or undefined. */
  async findRevision(key: PackageRevisionKey): Promise<PackageRevisionInfo | undefined> {
    return selectRevision(await this.listPackage(key.packageName), key);
  }

  /** findRevision, or NotFound. */
  async find(key: PackageRevisionKey): Promise<PackageRevisionInfo> {
    const found = await this.findRevision(key);
    if (found === undefined) {
      throw new GitStoreError(
        "NotFound",
        `package revision ${key.packageName}/${key.workspaceName} not found in repository ${displayUrl(this.config.url)}`,
      );
    }
    return found;
  }

  /** The files below a package's tree, read from git once while the memo keeps them. */
  async packageFiles(tree: string): Promise<Record<string, string>> {
    const memo = this.options.packageMemo ?? processPackageMemo();
    const kept = memo.get(this.cacheDir, tree, this.limits);
    if (kept !== undefined) return kept;
    const files = await readFiles(this.client, tree, this.limits);
    memo.set(this.cacheDir, tree, files);
    return files;
  }

  /** Oid the remote ref currently points at (the tag object for annotated tags). */
  refOid(ref: string): string | undefined {
    return this.currentRefs().get(ref)?.oid;
  }

  author(): Signature {
    return signatureNow(this.config.author);
  }

  committer(): Signature {
    return signatureNow(PORCH_SIGNATURE);
  }

  private async createBranchOrFail(): Promise<void> {
    if (!this.config.createBranch) throw this.branchMissing();
    const tree = await buildTree(this.client, { [INITIAL_README.name]: INITIAL_README.content });
    const sig = signatureNow(PORCH_SIGNATURE);
    const commit = await this.client.writeCommit({
      tree,
      parents: [],
      message: INITIAL_COMMIT_MESSAGE,
      author: sig,
      committer: sig,
    });
    try {
      await this.client.push([{ ref: this.branchRef, oid: commit, expect: null }]);
    } catch (err) {
      if (!(err instanceof PushRejectedError)) throw err; // someone else created it meanwhile
    }
    this.refs = await this.client.fetch();
    if (!this.refs.has(this.branchRef)) throw this.branchMissing();
  }

  private branchMissing(): GitStoreError {
    return new GitStoreError(
      "BranchMissing",
      `branch "${this.config.branch}" doesn't exist in repository ${displayUrl(this.config.url)}`,
    );
  }
}
