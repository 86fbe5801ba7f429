// The disk the git caches take together (PORCH_PEPR_GIT_CACHE_DISK_BYTES): each cache is
// measured after a fetch that changed its refs, and when they pass the bound the least recently
// used caches that no operation holds (the per-cache lock, mutex.ts) are deleted, and a cache
// over the bound by itself once its operation ends. An evicted
// cache is fetched again on its next use: every store that had it open sees its eviction count
// change and starts over (`evictions`). Removing a Repository's caches when it goes is
// `removeCache`, under the same lock.
import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { positiveSetting } from "./content-limits";
import { isLocked, withLock } from "./mutex";

export const CACHE_DISK_SETTING = "PORCH_PEPR_GIT_CACHE_DISK_BYTES";
/** 2 GiB: sixteen fetches at the per-fetch limit; a Repository's cache is usually far smaller. */
export const DEFAULT_CACHE_DISK_BYTES = 2 * 1024 * 1024 * 1024;

/**
 * Which caches to evict: sizes by folder, least recently used first. Pure; the caller deletes.
 */
export class CacheDiskLedger {
  /** Folder → bytes, least recently used first (a use moves it last). */
  readonly #sizes = new Map<string, number>();
  #total = 0;

  constructor(readonly maxBytes: number) {}

  get total(): number {
    return this.#total;
  }

  /**
   * Records that `dir` was just used and takes `bytes`, and returns the folders to evict to get
   * back within the bound: the least recently used first, none that `busy` says is in use, and
   * `dir` itself last, only when it alone is over the bound (it is deleted once its operation
   * ends, so one repository fetched again and again cannot grow without end). They are no longer
   * counted.
   */
  used(dir: string, bytes: number, busy: (dir: string) => boolean): string[] {
    this.forget(dir);
    this.#sizes.set(dir, bytes);
    this.#total += bytes;
    const evicted: string[] = [];
    for (const other of [...this.#sizes.keys()]) {
      if (this.#total <= this.maxBytes) break;
      if (other === dir || busy(other)) continue;
      this.forget(other);
      evicted.push(other);
    }
    if (bytes > this.maxBytes) {
      this.forget(dir);
      evicted.push(dir);
    }
    return evicted;
  }

  forget(dir: string): void {
    const size = this.#sizes.get(dir);
    if (size === undefined) return;
    this.#sizes.delete(dir);
    this.#total -= size;
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

  constructor(maxBytes: number) {
    this.ledger = new CacheDiskLedger(maxBytes);
  }

  /**
   * Measures `dir` (the caller holds its lock) and evicts idle caches over the bound; the
   * evictions run in the background, each once its cache is free.
   */
  async measured(dir: string): Promise<void> {
    const bytes = await diskUsage(dir);
    for (const victim of this.ledger.used(dir, bytes, isLocked)) {
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

export function processCacheDisk(): CacheDisk {
  processDisk ??= new CacheDisk(
    Math.floor(positiveSetting(process.env[CACHE_DISK_SETTING], DEFAULT_CACHE_DISK_BYTES)),
  );
  return processDisk;
}
