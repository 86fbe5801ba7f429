/**
 * A level-triggered work queue in the manner of client-go's: keys, not events, are queued, so
 * a burst of events for one object coalesces into one reconcile that reads current state; a key
 * is never processed twice at once; a failure is retried with capped exponential backoff (Pepr's
 * Reconcile has no retry), except a PermanentError, which waits for the next add(); a reconcile
 * may ask to run again after a delay.
 *
 * Fair between namespaces (one process serves every tenant): each namespace has its own FIFO of
 * keys, and a free worker goes to the next namespace in turn (round-robin), skipping one that
 * already runs `perNamespace` keys. Cluster-scoped keys ("/name") are one more namespace, "".
 * The bound this gives: a key added to a namespace with nothing queued and less than its share
 * running is started by the free workers after at most one key of each other namespace with
 * queued keys (one round), whatever their backlog; and since no namespace holds more than
 * `perNamespace` of the `concurrency` workers, at least `concurrency - perNamespace` workers
 * are never held by any one tenant, however many keys it queues or however slowly its
 * reconciles end. The cap holds even when the namespace is alone: reserving the rest is what
 * keeps a tenant's slow reconciles from holding every worker when another tenant arrives.
 */
import { isPermanentError, type PermanentError } from "./permanent-error";

/** The longest delay setTimeout keeps (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ReconcileResult {
  /** Run this key again after so many milliseconds (e.g. polling an external system). */
  requeueAfterMs?: number;
}

export type Reconciler = (key: string) => Promise<ReconcileResult | void>;

export interface WorkQueueOptions {
  /** Keys reconciled at the same time (different keys; one key is never concurrent). */
  concurrency: number;
  /**
   * Keys of one namespace reconciled at the same time (default: half of `concurrency`, at
   * least 1; more than `concurrency` means `concurrency`).
   */
  perNamespace?: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * A lower cap for errors that end by themselves (a git server that was down): after an outage
   * of minutes the backoff would otherwise reach maxDelayMs, and the key wait that long after
   * the server is back.
   */
  maxDelayOf?: (error: unknown) => number | undefined;
  /** Called when a reconcile throws; the key is retried after `retryInMs`. */
  onError?: (key: string, error: unknown, retryInMs: number) => void;
  /** Called when a reconcile throws a PermanentError; the key is not retried. */
  onPermanentError?: (key: string, error: PermanentError) => void;
  /**
   * Called with `pending` whenever it changed: the queue's depth, served on /metrics, so a soak
   * can show it stays bounded rather than growing with time.
   */
  onDepth?: (pending: number) => void;
  /**
   * Called with a namespace's keys queued or running whenever that number changed, 0 last when
   * it has none left (delayed keys are not counted: they hold no place in the turn).
   */
  onNamespaceDepth?: (namespace: string, depth: number) => void;
}

/** The namespace a key ("namespace/name") belongs to: "" for a cluster-scoped "/name". */
export function namespaceOfKey(key: string): string {
  const slash = key.indexOf("/");
  return slash < 0 ? "" : key.slice(0, slash);
}

/** Half of the workers, at least one: what one namespace may hold unless configured. */
export const defaultPerNamespace = (concurrency: number): number =>
  Math.max(1, Math.floor(concurrency / 2));

export const defaultQueueOptions: WorkQueueOptions = {
  concurrency: 4,
  baseDelayMs: 500,
  maxDelayMs: 5 * 60_000,
};

export class WorkQueue {
  /** Each namespace's keys waiting for a worker, in the order they were added. */
  readonly #queues = new Map<string, string[]>();
  /** Namespaces with waiting keys, in the order of their next turn. */
  readonly #turns: string[] = [];
  /** Keys running per namespace (absent: none). */
  readonly #running = new Map<string, number>();
  readonly #perNamespace: number;
  readonly #queued = new Set<string>();
  readonly #processing = new Set<string>();
  /** Keys added again while being processed: they run once more afterwards. */
  readonly #dirty = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #active = 0;
  #stopped = false;
  /** The depth onDepth last heard (it hears only changes). */
  #reportedDepth = 0;
  readonly #idleWaiters: (() => void)[] = [];

  constructor(
    private readonly reconcile: Reconciler,
    private readonly options: WorkQueueOptions = defaultQueueOptions,
  ) {
    const { concurrency, perNamespace = defaultPerNamespace(concurrency) } = options;
    this.#perNamespace = Math.max(1, Math.min(perNamespace, concurrency));
  }

  add(key: string): void {
    if (this.#stopped) return;
    this.#clearTimer(key);
    if (this.#processing.has(key)) this.#dirty.add(key);
    else if (!this.#queued.has(key)) this.#enqueue(key);
    // A cleared timer changes the depth even when the key was already queued or running.
    this.#pump();
  }

  /** Adds the key after a delay; an earlier add() or addAfter() with a shorter delay wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#stopped) return;
    if (delayMs <= 0) return this.add(key);
    if (this.#timers.has(key) || this.#queued.has(key)) return;
    // A timer holds at most MAX_TIMER_MS and turns a longer delay into 1 ms: a yearly sync
    // schedule would reconcile without pause. A longer delay waits in steps.
    const step = Math.min(delayMs, MAX_TIMER_MS);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      if (delayMs > step) this.addAfter(key, delayMs - step);
      else this.add(key);
    }, step);
    timer.unref();
    this.#timers.set(key, timer);
    this.#reportDepth();
  }

  /** Keys waiting or running: used by tests and benchmarks to wait for quiescence. */
  get pending(): number {
    return this.#queued.size + this.#active + this.#timers.size;
  }

  /** Resolves when nothing is queued or running (delayed keys do not count). */
  idle(): Promise<void> {
    if (this.#queued.size === 0 && this.#active === 0) return Promise.resolve();
    return new Promise(resolve => this.#idleWaiters.push(resolve));
  }

  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#reportDepth();
  }

  #reportDepth(): void {
    const depth = this.pending;
    if (depth === this.#reportedDepth) return;
    this.#reportedDepth = depth;
    this.options.onDepth?.(depth);
  }

  #finished(namespace: string): void {
    const running = (this.#running.get(namespace) ?? 0) - 1;
    if (running > 0) this.#running.set(namespace, running);
    else this.#running.delete(namespace);
    this.#reportNamespace(namespace);
  }

  /** Whether a namespace other than `namespace` has keys queued or running. */
  othersActive(namespace: string): boolean {
    for (const [other, queue] of this.#queues)
      if (other !== namespace && queue.length > 0) return true;
    for (const other of this.#running.keys()) if (other !== namespace) return true;
    return false;
  }

  /** Tells onNamespaceDepth a namespace's keys queued or running. */
  #reportNamespace(namespace: string): void {
    if (!this.options.onNamespaceDepth) return;
    const depth = (this.#queues.get(namespace)?.length ?? 0) + (this.#running.get(namespace) ?? 0);
    this.options.onNamespaceDepth(namespace, depth);
  }

  #clearTimer(key: string): void {
    const timer = this.#timers.get(key);
    if (timer) clearTimeout(timer);
    this.#timers.delete(key);
  }

  #enqueue(key: string): void {
    const namespace = namespaceOfKey(key);
    this.#queued.add(key);
    const queue = this.#queues.get(namespace);
    if (queue) queue.push(key);
    else {
      this.#queues.set(namespace, [key]);
      // Last in the turn: served after each namespace already waiting, at most once each.
      this.#turns.push(namespace);
    }
    this.#reportNamespace(namespace);
  }

  /**
   * The next key in turn, or undefined when every namespace with waiting keys runs its share.
   * A namespace served, or skipped at its share, goes to the end of the turn.
   */
  #next(): string | undefined {
    for (let tried = this.#turns.length; tried > 0; tried--) {
      const namespace = this.#turns.shift() as string;
      const queue = this.#queues.get(namespace) as string[];
      if ((this.#running.get(namespace) ?? 0) >= this.#perNamespace) {
        this.#turns.push(namespace);
        continue;
      }
      const key = queue.shift() as string;
      if (queue.length > 0) this.#turns.push(namespace);
      else this.#queues.delete(namespace);
      return key;
    }
    return undefined;
  }

  #pump(): void {
    while (!this.#stopped && this.#active < this.options.concurrency) {
      const key = this.#next();
      if (key === undefined) break;
      const namespace = namespaceOfKey(key);
      this.#queued.delete(key);
      this.#processing.add(key);
      this.#running.set(namespace, (this.#running.get(namespace) ?? 0) + 1);
      this.#active += 1;
      void this.#run(key);
    }
    this.#reportDepth();
    if (this.#queued.size === 0 && this.#active === 0) {
      for (const resolve of this.#idleWaiters.splice(0)) resolve();
    }
  }

  async #run(key: string): Promise<void> {
    let requeueAfterMs: number | undefined;
    try {
      const result = await this.reconcile(key);
      this.#failures.delete(key);
      requeueAfterMs = result?.requeueAfterMs;
    } catch (error) {
      requeueAfterMs = this.#retryDelay(key, error);
    } finally {
      this.#processing.delete(key);
      this.#active -= 1;
      this.#finished(namespaceOfKey(key));
    }
    if (this.#dirty.delete(key)) this.add(key);
    else if (requeueAfterMs !== undefined) this.addAfter(key, requeueAfterMs);
    this.#pump();
  }

  /** Backoff for a failed key; undefined (no retry) for a PermanentError. */
  #retryDelay(key: string, error: unknown): number | undefined {
    if (isPermanentError(error)) {
      this.#failures.delete(key);
      this.options.onPermanentError?.(key, error);
      return undefined;
    }
    const failures = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, failures);
    const cap = this.options.maxDelayOf?.(error) ?? this.options.maxDelayMs;
    const delay = Math.min(this.options.baseDelayMs * 2 ** (failures - 1), cap);
    this.options.onError?.(key, error, delay);
    return delay;
  }
}
