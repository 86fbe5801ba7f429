// The memory all isomorphic-git network operations in flight may hold together
// (PORCH_PEPR_GIT_FETCH_MEMORY). A fetch's pack goes to disk as it arrives, then is read back
// whole once to be scanned and indexed (iso-pack-guard.ts), so a few fetches at once, each
// within the per-fetch limit, could pass the watcher's memory. Each operation takes from one
// process-wide FairBudget what the bytes it receives cost in memory (FETCH_MEMORY_PER_BYTE
// each), a step at a time as they arrive (a trickling server holds only what it sent), and
// gives it back when it ends; one namespace holds at most its share, and a fetch that cannot
// get its next step within the wait bound first has stalled fetches of namespaces over an equal
// split cut (cutStalledHolds), then fails FetchMemoryBusy instead of hanging. The git CLI writes
// what it fetches to disk in its own process and takes nothing from this budget.
import { BudgetWaitTimeout, FairBudget, namespaceShare } from "../controller/fair-budget";
import { positiveSetting } from "./content-limits";
import { GitStoreError } from "./errors";

export const FETCH_MEMORY_SETTING = "PORCH_PEPR_GIT_FETCH_MEMORY";
export const FETCH_MEMORY_PER_NAMESPACE_SETTING = "PORCH_PEPR_GIT_FETCH_MEMORY_PER_NAMESPACE";
export const FETCH_MEMORY_WAIT_SETTING = "PORCH_PEPR_GIT_FETCH_MEMORY_WAIT_MS";

/**
 * 128 MiB: what is left of a 512 MiB watcher after its runtime (about 165 MiB at rest), the
 * built-in function pool (96 MiB) and the pack cache (64 MiB), with room for isomorphic-git's
 * own copies while it indexes a pack; one fetch at the per-fetch limit, or many small ones.
 */
export const DEFAULT_FETCH_MEMORY = 128 * 1024 * 1024;
/**
 * 10 s: below the idle and low-speed windows (30 s), so an answer paused while it waits is never
 * mistaken for a slow server; a fetch that could not get memory by then is retried with backoff.
 */
export const DEFAULT_FETCH_MEMORY_WAIT_MS = 10_000;
/**
 * Memory one received byte costs while its fetch runs: the pack read back whole (one byte), and
 * the objects the scan and the index inflate (each dropped once read, but collected later).
 * Measured by bench/iso-fetch-memory.ts, one fetch of incompressible 8 MiB blobs: 3.1 bytes of
 * RSS per byte for packs of 30 and 37 MiB, 3.6 for 19 MiB, 4.4 for 8 MiB (a fixed part on top).
 */
export const FETCH_MEMORY_PER_BYTE = 3;
/** Bytes taken at a time: fewer waits than one per network chunk, little held unused. */
export const FETCH_MEMORY_STEP = 1024 * 1024;

/** The budget the settings describe; a namespace's share is half of it unless set. */
export function fetchMemoryFromEnv(
  env: Record<string, string | undefined>,
  onUse?: ConstructorParameters<typeof FairBudget>[3],
): FairBudget {
  const limit = Math.floor(positiveSetting(env[FETCH_MEMORY_SETTING], DEFAULT_FETCH_MEMORY));
  const share = namespaceShare(limit, env[FETCH_MEMORY_PER_NAMESPACE_SETTING]);
  const waitMs = positiveSetting(env[FETCH_MEMORY_WAIT_SETTING], DEFAULT_FETCH_MEMORY_WAIT_MS);
  const budget: FairBudget = new FairBudget(limit, share, waitMs, onUse, (namespace, amount) =>
    cutStalledHolds(budget, namespace, amount),
  );
  return budget;
}

/** The holds of each budget that hold some of it. */
const holding = new WeakMap<FairBudget, Set<FetchHold>>();

/**
 * For a fetch of `waiting` that waited the whole bound for `amount`: cuts the holds of other
 * namespaces that hold more than an equal split of the budget (between them and `waiting`) and
 * received less than a step in that time, the longest stalled first, until what they hold would
 * make room. A trickling server could otherwise keep half the budget until the total timeout
 * while other tenants' fetches fail FetchMemoryBusy. Returns whether it cut any.
 */
function cutStalledHolds(budget: FairBudget, waiting: string, amount: number): boolean {
  const { slots } = budget;
  if (slots.heldBy(waiting) + amount > slots.perNamespace) return false; // its own share is full
  const holds = [...(holding.get(budget) ?? [])];
  const split = budget.limit / new Set([waiting, ...holds.map(h => h.namespace)]).size;
  const now = Date.now();
  const stalled = holds
    .filter(
      h =>
        h.namespace !== waiting &&
        h.stalled &&
        slots.heldBy(h.namespace) > split &&
        now - h.lastStepAt >= budget.waitMs,
    )
    .sort((a, b) => a.lastStepAt - b.lastStepAt);
  let freed = 0;
  for (const hold of stalled) {
    if (slots.taken - freed + amount <= budget.limit) break;
    freed += hold.cut(budget.waitMs);
  }
  return freed > 0;
}

let processBudget: FairBudget | undefined;

/** The one budget of this process (from its environment). */
export function processFetchMemory(): FairBudget {
  processBudget ??= fetchMemoryFromEnv(process.env);
  return processBudget;
}

/** Replaces the process's budget (the module's start-up, to report its use on /metrics). */
export function setProcessFetchMemory(budget: FairBudget): void {
  processBudget = budget;
}

/**
 * What one network operation of one namespace holds of the budget: `charge` before using each
 * chunk received (FETCH_MEMORY_PER_BYTE per byte), `release` once when the operation ends.
 */
export class FetchHold {
  #reserved = 0;
  #used = 0;
  #cut: GitStoreError | undefined;
  /** Waiting for its next step: held up by the budget, not by its server. */
  #waiting = false;
  /** When it last took a step (or began): a hold that takes none while others wait is cut. */
  lastStepAt = Date.now();

  constructor(
    private readonly budget: FairBudget,
    readonly namespace: string,
    /** The repository, as shown in messages (no credentials). */
    private readonly shownUrl: string,
  ) {}

  /** Whether it could be cut: not cut yet, and not waiting for the budget itself. */
  get stalled(): boolean {
    return this.#cut === undefined && !this.#waiting;
  }

  /**
   * Makes its next charge fail with a Timeout (the fetch ends and releases what it holds);
   * returns the bytes it holds.
   */
  cut(waitMs: number): number {
    this.#cut ??= new GitStoreError(
      "Timeout",
      `git fetch from ${this.shownUrl} was cut: it held ${this.#reserved} bytes of fetch memory and received less than ${Math.ceil(FETCH_MEMORY_STEP / FETCH_MEMORY_PER_BYTE)} bytes in ${waitMs} ms while a fetch of another namespace waited for memory (${FETCH_MEMORY_WAIT_SETTING})`,
    );
    return this.#reserved;
  }

  async charge(received: number): Promise<void> {
    if (this.#cut) throw this.#cut;
    this.#used += received * FETCH_MEMORY_PER_BYTE;
    if (this.#used <= this.#reserved) return;
    const share = this.budget.perNamespace;
    if (this.#used > share)
      throw new GitStoreError(
        "ContentTooLarge",
        `git fetch from ${this.shownUrl} needs more than the ${share} bytes one namespace's fetches may hold in memory (${FETCH_MEMORY_PER_NAMESPACE_SETTING}; each byte received takes ${FETCH_MEMORY_PER_BYTE})`,
      );
    const wanted = Math.ceil((this.#used - this.#reserved) / FETCH_MEMORY_STEP) * FETCH_MEMORY_STEP;
    const step = Math.min(wanted, share - this.#reserved);
    this.#waiting = true;
    try {
      await this.budget.acquire(this.namespace, step);
    } catch (err) {
      if (!(err instanceof BudgetWaitTimeout)) throw err;
      throw new GitStoreError(
        "FetchMemoryBusy",
        err.ownShareFull
          ? `git fetch from ${this.shownUrl} waited ${this.budget.waitMs} ms for memory: other fetches of this namespace hold its share of ${share} bytes (${FETCH_MEMORY_PER_NAMESPACE_SETTING})`
          : `git fetch from ${this.shownUrl} waited ${this.budget.waitMs} ms for memory: fetches in flight hold the ${this.budget.limit} bytes all may hold (${FETCH_MEMORY_SETTING})`,
      );
    } finally {
      this.#waiting = false;
    }
    this.#reserved += step;
    this.lastStepAt = Date.now();
    let holds = holding.get(this.budget);
    if (!holds) holding.set(this.budget, (holds = new Set()));
    holds.add(this);
  }

  release(): void {
    holding.get(this.budget)?.delete(this);
    this.budget.release(this.namespace, this.#reserved);
    this.#reserved = 0;
    this.#used = 0;
  }
}
