// A list + watch of one resource in one namespace: the objects the benchmark waits on, kept
// current by one watch instead of N polls (a poll loop would load the API server it measures).
import type { Api, KubeObject } from "./kube";

interface ListResponse {
  metadata: { resourceVersion: string };
  items: KubeObject[];
}

interface Waiter {
  check: () => boolean;
  nextReport: number;
}

/**
 * Events applied by every cache of this process: a waiter re-evaluates its predicate only
 * after one (its predicate may read other caches, e.g. a revision's resources), so the
 * benchmark's own CPU follows the events, not N × checks per second, at N = 10,000 too.
 */
let eventsSeen = 0;

/** What the benchmark never reads and the API server sends with every object. */
function trimmed(obj: KubeObject): KubeObject {
  if (!obj.metadata?.managedFields) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** How often a waiting predicate is re-evaluated while events arrive. */
const CHECK_EVERY_MS = 100;
/** How often a long wait prints its progress. */
const REPORT_EVERY_MS = 15_000;

export class ObjectCache {
  readonly items = new Map<string, KubeObject>();
  /** performance.now() of the last event: when a predicate became true (to 100 ms). */
  lastEventAt = performance.now();
  #resourceVersion = "0";
  #close: (() => void) | undefined;
  #stopped = false;
  readonly #waiters = new Set<Waiter>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly api: Api,
    private readonly path: string,
  ) {}

  async start(): Promise<this> {
    const list = await this.api.json<ListResponse>("GET", this.path);
    this.items.clear();
    for (const item of list.items) this.items.set(item.metadata.name, trimmed(item));
    eventsSeen++;
    this.#resourceVersion = list.metadata.resourceVersion;
    this.#watch();
    return this;
  }

  stop(): void {
    this.#stopped = true;
    this.#close?.();
    clearInterval(this.#timer);
  }

  get values(): KubeObject[] {
    return [...this.items.values()];
  }

  #watch(): void {
    this.#close = this.api.watch(
      this.path,
      this.#resourceVersion,
      (type, obj) => this.#apply(type, obj),
      error => {
        if (this.#stopped) return;
        // A timed-out watch resumes; after an error or an expired resourceVersion (an ERROR
        // event cleared it), list again first.
        if (error === undefined && this.#resourceVersion !== "") return this.#watch();
        const relist = () => void this.start().catch(() => setTimeout(relist, 1000));
        relist();
      },
    );
  }

  #apply(type: string, obj: KubeObject): void {
    if (type === "ERROR") {
      this.#resourceVersion = "";
      return;
    }
    if (obj.metadata?.resourceVersion) this.#resourceVersion = obj.metadata.resourceVersion;
    if (type === "DELETED") this.items.delete(obj.metadata.name);
    else if (type === "ADDED" || type === "MODIFIED")
      this.items.set(obj.metadata.name, trimmed(obj));
    this.lastEventAt = performance.now();
    eventsSeen++;
  }

  /**
   * Resolves with `value` and the time of the event that made it defined (performance.now()),
   * checking every 100 ms; rejects after `timeoutMs` with `what` and the last progress.
   */
  until<T>(
    what: string,
    predicate: () => T | undefined,
    timeoutMs: number,
    progress?: () => string,
  ): Promise<{ value: T; at: number }> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      let seen = -1;
      const waiter: Waiter = {
        nextReport: started + REPORT_EVERY_MS,
        check: () => {
          const at = this.lastEventAt;
          const fresh = seen !== eventsSeen;
          seen = eventsSeen;
          const value = fresh ? predicate() : undefined;
          if (value !== undefined) {
            this.#waiters.delete(waiter);
            resolve({ value, at: Math.max(at, started) });
            return true;
          }
          if (progress && performance.now() > waiter.nextReport) {
            waiter.nextReport += REPORT_EVERY_MS;
            const elapsed = Math.round((performance.now() - started) / 1000);
            process.stderr.write(`  ... ${what}: ${progress()} after ${elapsed}s\n`);
          }
          if (performance.now() - started > timeoutMs) {
            this.#waiters.delete(waiter);
            reject(
              new Error(`${what}: not reached after ${timeoutMs / 1000}s (${progress?.() ?? ""})`),
            );
            return true;
          }
          return false;
        },
      };
      if (waiter.check()) return;
      this.#waiters.add(waiter);
      this.#timer ??= setInterval(() => {
        for (const w of [...this.#waiters]) w.check();
        if (this.#waiters.size === 0) {
          clearInterval(this.#timer);
          this.#timer = undefined;
        }
      }, CHECK_EVERY_MS);
    });
  }
}
