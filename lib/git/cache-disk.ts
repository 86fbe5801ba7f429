// The disk the git caches take together (PORCH_PEPR_GIT_CACHE_DISK_BYTES), shared between
// namespaces as the fetch memory is (fair-budget.ts): one namespace's caches take at most its
// share (PORCH_PEPR_GIT_CACHE_DISK_PER_NAMESPACE_BYTES, half the disk unless set), so a tenant's
// huge repositories evict its own caches, not everyone's. Each cache is measured after a fetch
// that changed its refs; a namespace over its share loses its own least recently used caches
// that no operation holds (the per-cache lock, mutex.ts), and past the whole bound the least
// recently used idle caches of namespaces over an equal split of the disk go first. A cache over
// the share by itself is deleted once its operation ends. An evicted cache is fetched again on
// its next use: every store that had it open sees its eviction count change and starts over
// (`evictions`). Removing a Repository's caches when it goes is `removeCache`, under the same
// lock.
import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { namespaceShare } from "../controller/fair-budget";
import { positiveSetting } from "./content-limits";
import { isLocked, withLock } from "./mutex";

export const CACHE_DISK_SETTING = "PORCH_PEPR_GIT_CACHE_DISK_BYTES";
export const CACHE_DISK_PER_NAMESPACE_SETTING = "PORCH_PEPR_GIT_CACHE_DISK_PER_NAMESPACE_BYTES";
/** 2 GiB: sixteen fetches at the per-fetch limit; a Repository's cache is usually far smaller. */
export const DEFAULT_CACHE_DISK_BYTES = 2 * 1024 * 1024 * 1024;

interface CacheUse {
  namespace: string;
  bytes: number;
}

/**
 * Which caches to evict: sizes by folder and namespace, least recently used first. Pure; the
 * caller deletes.
 */
export class CacheDiskLedger {
  /** Folder → its use, least recently used first (a use moves it last). */
  readonly #uses = new Map<string, CacheUse>();
  /** Namespace → bytes of its caches. */
  readonly #held = new Map<string, number>();
  #total = 0;
  readonly perNamespace: number;

  constructor(
    readonly maxBytes: number,
    perNamespace = maxBytes,
  ) {
    this.perNamespace = Math.min(perNamespace, maxBytes);
  }

  get total(): number {
    return this.#total;
  }

  heldBy(namespace: string): number {
    return this.#held.get(namespace) ?? 0;
  }

  /**
   * Records that `dir` of `namespace` was just used and takes `bytes`, and returns the folders
   * to evict, none that `busy` says is in use and `dir` itself only when it alone is over the
   * namespace's share (it is deleted once its operation ends, so one repository fetched again and
   * again cannot grow without end). First the namespace's own least recently used caches while it
   * is over its share; then, while all are over the bound, the least recently used caches of the
   * namespaces holding more than an equal split of it: a namespace within its split never loses
   * a cache to another's growth. Evicted folders are no longer counted.
   */
  used(dir: string, namespace: string, bytes: number, busy: (dir: string) => boolean): string[] {
    this.forget(dir);
    this.#uses.set(dir, { namespace, bytes });
    this.#add(namespace, bytes);
    const evicted: string[] = [];
    const evictWhile = (over: () => boolean, from: (use: CacheUse) => boolean) => {
      for (const [other, use] of [...this.#uses]) {
        if (!over()) return;
        if (other === dir || busy(other) || !from(use)) continue;
        this.forget(other);
        evicted.push(other);
      }
    };
    evictWhile(
      () => this.heldBy(namespace) > this.perNamespace,
      use => use.namespace === namespace,
    );
    evictWhile(
      () => this.#total > this.maxBytes,
      use => this.heldBy(use.namespace) > this.maxBytes / this.#held.size,
    );
    if (bytes > this.perNamespace) {
      this.forget(dir);
      evicted.push(dir);
    }
    return evicted;
  }

  forget(dir: string): void {
    const use = this.#uses.get(dir);
    if (use === undefined) return;
    this.#uses.delete(dir);
    this.#add(use.namespace, -use.bytes);
  }

  #add(namespace: string, bytes: number): void {
    this.#total += bytes;
    const held = this.heldBy(namespace) + bytes;
    if (held > 0) this.#held.set(namespace, held);
    else this.#held.delete(namespace);
  }
}

/** Bytes of the files under `dir` (0 when it is gone); links are not followed. */
export async function diskUsage(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await diskUsage(path);
    else
      total += await lstat(path).then(
        s => s.size,
        () => 0,
      );
  }
  return total;
}

const evictionCounts = new Map<string, number>();

/** How many times the cache at `dir` was removed in this process: a change means start over. */
export const evictions = (dir: string): number => evictionCounts.get(dir) ?? 0;

/** Deletes the cache at `dir` once no operation holds it (waiting for the one that does). */
export function removeCache(dir: string): Promise<void> {
  processCacheDisk().ledger.forget(dir);
  return withLock(dir, async () => {
    await rm(dir, { recursive: true, force: true });
    evictionCounts.set(dir, evictions(dir) + 1);
  });
}

export class CacheDisk {
  readonly ledger: CacheDiskLedger;
  readonly #removing = new Set<Promise<void>>();

  constructor(maxBytes: number, perNamespace?: number) {
    this.ledger = new CacheDiskLedger(maxBytes, perNamespace);
  }

  /**
   * Measures `dir`, a cache of `namespace` (the caller holds its lock), and evicts idle caches
   * over the bounds; the evictions run in the background, each once its cache is free.
   */
  async measured(dir: string, namespace: string): Promise<void> {
    const bytes = await diskUsage(dir);
    for (const victim of this.ledger.used(dir, namespace, bytes, isLocked)) {
      const removal = removeCache(victim)
        .catch(() => undefined) // gone already, or measured again when next fetched
        .finally(() => this.#removing.delete(removal));
      this.#removing.add(removal);
    }
  }

  /** Resolves when the evictions started so far are done (tests wait for them). */
  async settled(): Promise<void> {
    await Promise.all([...this.#removing]);
  }
}

let processDisk: CacheDisk | undefined;

/** The bounds the settings in `env` describe. */
export function cacheDiskFromEnv(env: Record<string, string | undefined>): CacheDisk {
  const max = Math.floor(positiveSetting(env[CACHE_DISK_SETTING], DEFAULT_CACHE_DISK_BYTES));
  return new CacheDisk(max, namespaceShare(max, env[CACHE_DISK_PER_NAMESPACE_SETTING]));
}

export function processCacheDisk(): CacheDisk {
  processDisk ??= cacheDiskFromEnv(process.env);
  return processDisk;
}
