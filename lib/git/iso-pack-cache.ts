// isomorphic-git's object cache, bounded. Its `cache` argument keeps every pack index it loads,
// and the whole pack with it once an object is read from it, for as long as the cache object
// lives: a client's lifetime, the process's. Every fetch stores a new pack, so that memory grew
// with every fetch of every repository. Here the packs share one budget in bytes across the
// process (PORCH_PEPR_GIT_PACK_CACHE_BYTES); the least recently used are dropped over it and
// loaded from disk again when next read.
import { statSync } from "node:fs";
import { positiveSetting } from "./content-limits";

export const PACK_CACHE_SETTING = "PORCH_PEPR_GIT_PACK_CACHE_BYTES";

/** 64 MiB: half of the per-fetch limit, an eighth of a 512 MiB pod. */
export const DEFAULT_PACK_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * What one loaded pack costs: the pack file (read whole on the first object read from it) and its
 * index, held as a hex string and a map entry per object (about six times the .idx file's 28
 * bytes per object).
 */
function packCost(idxPath: string): number {
  const size = (path: string) => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  return size(idxPath.replace(/\.idx$/, ".pack")) + 6 * size(idxPath);
}

/** Packs held by every cache sharing it, least recently used first. */
export class PackBudget {
  private readonly held = new Map<string, { packs: PackCache; filename: string; bytes: number }>();
  private total = 0;
  private nextId = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes held now (estimated as packCost says). */
  get bytes(): number {
    return this.total;
  }

  get count(): number {
    return this.held.size;
  }

  /** A new pack map for one isomorphic-git cache. */
  newCache(): PackCache {
    return new PackCache(this, String(this.nextId++));
  }

  charge(packs: PackCache, filename: string): void {
    this.release(packs, filename);
    const bytes = packCost(filename);
    this.held.set(`${packs.id}\0${filename}`, { packs, filename, bytes });
    this.total += bytes;
    // The pack just loaded stays even alone over the budget: the read in progress needs it.
    for (const [key, oldest] of this.held) {
      if (this.total <= this.maxBytes || this.held.size <= 1) break;
      if (key === `${packs.id}\0${filename}`) continue;
      oldest.packs.delete(oldest.filename);
    }
  }

  touch(packs: PackCache, filename: string): void {
    const key = `${packs.id}\0${filename}`;
    const entry = this.held.get(key);
    if (entry === undefined) return;
    this.held.delete(key);
    this.held.set(key, entry);
  }

  release(packs: PackCache, filename: string): void {
    const key = `${packs.id}\0${filename}`;
    const entry = this.held.get(key);
    if (entry === undefined) return;
    this.held.delete(key);
    this.total -= entry.bytes;
  }
}

/** isomorphic-git's map of loaded packs (.idx path → loading index), charged to a budget. */
export class PackCache extends Map<string, unknown> {
  constructor(
    private readonly budget: PackBudget,
    readonly id: string,
  ) {
    super();
  }

  override get(filename: string): unknown {
    const value = super.get(filename);
    if (value !== undefined) this.budget.touch(this, filename);
    return value;
  }

  override set(filename: string, value: unknown): this {
    super.set(filename, value);
    this.budget.charge(this, filename);
    return this;
  }

  override delete(filename: string): boolean {
    this.budget.release(this, filename);
    return super.delete(filename);
  }

  override clear(): void {
    for (const filename of this.keys()) this.budget.release(this, filename);
    super.clear();
  }
}

let processBudget: PackBudget | undefined;

/** The budget every client shares unless given its own (read from the environment once). */
export function processPackBudget(env: NodeJS.ProcessEnv = process.env): PackBudget {
  processBudget ??= new PackBudget(
    Math.floor(positiveSetting(env[PACK_CACHE_SETTING], DEFAULT_PACK_CACHE_BYTES)),
  );
  return processBudget;
}

/**
 * A `cache` argument for isomorphic-git whose pack map is `packs`: isomorphic-git creates that map
 * under a private symbol on first use, so the one it creates is swapped for ours as it is set.
 */
export function boundedIsoCache(packs: PackCache): object {
  return new Proxy<Record<string | symbol, unknown>>(
    {},
    {
      set(target, key, value) {
        const isPackMap =
          typeof key === "symbol" && key.description === "PackfileCache" && value instanceof Map;
        target[key] = isPackMap ? packs : value;
        return true;
      },
    },
  );
}
