// A render that failed because a resource every tenant shares was busy says nothing about its
// input, unlike one that exceeded a bound: it is rendered again on its own, with exponential
// backoff per revision, until it renders or its files change (docs/status-conditions.md).

/**
 * Function runs that failed for want of shared capacity: the operator's function Pods are all
 * busy (TooManyPods, PORCH_PEPR_FN_MAX_PODS), a pool's wait queue is full (QueueFull: a Pod's,
 * or the built-in workers'), or a Pod refused the run as busy (PodBusy).
 */
export type CapacityReason = "TooManyPods" | "QueueFull" | "PodBusy";

export const CAPACITY_REASONS: readonly CapacityReason[] = ["TooManyPods", "QueueFull", "PodBusy"];

export function isCapacityReason(reason: string | undefined): reason is CapacityReason {
  return (CAPACITY_REASONS as readonly (string | undefined)[]).includes(reason);
}

export interface CapacityBackoff {
  /** The first retry's delay before jitter. */
  baseMs: number;
  /** The longest delay before jitter: the doubling stops there. */
  maxMs: number;
  /**
   * Revisions remembered at most, a quarter of them per namespace; a namespace over its share
   * forgets its own oldest first (that one is retried early once).
   */
  maxEntries: number;
  /** A number in [0, 1): Math.random in the process, a fixed sequence in tests. */
  random: () => number;
}

/** 5 s doubling to 5 min; 10,000 revisions of about 100 bytes each. */
export const DEFAULT_CAPACITY_BACKOFF: Omit<CapacityBackoff, "random"> = {
  baseMs: 5_000,
  maxMs: 5 * 60_000,
  maxEntries: 10_000,
};

/**
 * The delay before retry `attempt` (1 for the first): base doubling per attempt up to max, of
 * which a random half is dropped ("equal jitter"), so revisions that failed together do not all
 * come back at the same instant and take the freed capacity from each other again.
 */
export function capacityDelayMs(
  attempt: number,
  backoff: Pick<CapacityBackoff, "baseMs" | "maxMs">,
  random: number,
): number {
  const full = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(full / 2 + (full / 2) * random);
}

/** A revision's pending retry: how many capacity failures in a row, and when to render again. */
export interface CapacityRetry {
  attempt: number;
  dueAtMs: number;
}

export type CapacityDecision =
  /** The last render did not fail for capacity: nothing to retry. */
  | { kind: "none" }
  /** Render again now (due, or no retry remembered: a new process looks once). */
  | { kind: "now" }
  /** Come back after `afterMs`. */
  | { kind: "wait"; afterMs: number };

/**
 * Whether to render files that did not change because the last render failed for capacity.
 * `rendered` is the revision's Rendered condition; `pending` what this process remembers.
 */
export function capacityDecision(
  rendered: { status?: string; reason?: string } | undefined,
  pending: CapacityRetry | undefined,
  nowMs: number,
): CapacityDecision {
  if (rendered?.status !== "False" || !isCapacityReason(rendered.reason)) return { kind: "none" };
  if (!pending) return { kind: "now" };
  const afterMs = pending.dueAtMs - nowMs;
  return afterMs > 0 ? { kind: "wait", afterMs } : { kind: "now" };
}

/** The condition message's tail: that the render is retried, and when. */
export function retryNote(retry: CapacityRetry, nowMs: number): string {
  const inSeconds = Math.max(0, Math.ceil((retry.dueAtMs - nowMs) / 1000));
  return `shared capacity was busy, not a fault of the package: render retry ${retry.attempt} at ${new Date(retry.dueAtMs).toISOString()} (in ${inSeconds} s), or sooner when the files change`;
}

/**
 * The pending retries of one process, by revision key ("namespace/name"): at most `maxEntries`,
 * a quarter of them for one namespace. A namespace over its share forgets its own oldest, so one
 * tenant's thousands of failing revisions never push another tenant's backoff back to the start.
 */
export class CapacityRetries {
  readonly #byNamespace = new Map<string, Map<string, CapacityRetry>>();
  #size = 0;

  constructor(private readonly backoff: CapacityBackoff) {}

  get(key: string): CapacityRetry | undefined {
    return this.#byNamespace.get(namespaceOf(key))?.get(key);
  }

  /** Another capacity failure of `key`'s files: the next retry, later by backoff. */
  failed(key: string, nowMs: number): CapacityRetry {
    const attempt = (this.get(key)?.attempt ?? 0) + 1;
    const retry = {
      attempt,
      dueAtMs: nowMs + capacityDelayMs(attempt, this.backoff, this.backoff.random()),
    };
    this.forget(key);
    const namespace = namespaceOf(key);
    const own = this.#byNamespace.get(namespace) ?? new Map<string, CapacityRetry>();
    this.#byNamespace.set(namespace, own);
    // Re-inserted, so each map's order is the order of the last failure: the oldest goes first.
    own.set(key, retry);
    this.#size++;
    const share = Math.max(1, Math.floor(this.backoff.maxEntries / 4));
    while (own.size > share) this.forget(own.keys().next().value as string);
    while (this.#size > this.backoff.maxEntries) this.#forgetOldestOfLargest();
    return retry;
  }

  /** Rendered, failed otherwise, new files, or gone: the backoff starts over. */
  forget(key: string): void {
    const namespace = namespaceOf(key);
    const own = this.#byNamespace.get(namespace);
    if (!own?.delete(key)) return;
    this.#size--;
    if (own.size === 0) this.#byNamespace.delete(namespace);
  }

  get size(): number {
    return this.#size;
  }

  #forgetOldestOfLargest(): void {
    let largest: Map<string, CapacityRetry> | undefined;
    for (const own of this.#byNamespace.values())
      if (largest === undefined || own.size > largest.size) largest = own;
    if (largest) this.forget(largest.keys().next().value as string);
  }
}

const namespaceOf = (key: string) => key.slice(0, Math.max(0, key.indexOf("/")));
