import { ChangeFilter } from "./change-filter";
import { Indexers, WatchCache } from "./watch-cache";
import type { ReconcileResult } from "./work-queue";

/**
 * The controller manager, as controller-runtime's `SetupWithManager` declares it: one watch per
 * kind feeds one indexed cache per kind, and each event fans out to the controllers that
 * declared an interest in that kind, as data. Framework-free: the Pepr binding that delivers
 * events, the work queues and the context are handed in (capabilities/manager.ts).
 */

export type WatchPhase = "ADDED" | "MODIFIED" | "DELETED";

export interface WatchedObject {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    managedFields?: unknown;
  };
}

/** How one kind is held: what is dropped from each object and how the cache indexes it. */
export interface KindSpec<T extends WatchedObject> {
  /**
   * Drops in place what no reader needs (managedFields always). In place on purpose: the
   * object Pepr's watch delivers is the one its client keeps for relisting, so one slim copy
   * serves both.
   */
  slim?: (obj: T) => void;
  /** The cache to fill (made from `indexers` when absent). */
  cache?: WatchCache<T>;
  indexers?: Indexers<T>;
}

/** A secondary kind a controller watches: which of its keys an event concerns. */
export interface WatchSpec<Ctx> {
  kind: string;
  /** The keys ("namespace/name") of the controller's objects this event concerns. */
  map: (obj: WatchedObject, phase: WatchPhase, ctx: Ctx) => string[];
  /**
   * The part of the object the controller reads: an update that leaves it unchanged costs no
   * reconcile. Absent: every event counts.
   */
  relevance?: (obj: WatchedObject) => unknown;
  /**
   * Coalesce this watch's events over so many milliseconds (one reconcile for a burst), or over
   * what the function says for this event (e.g. longer for a larger object to reconcile).
   */
  delayMs?: number | ((obj: WatchedObject, ctx: Ctx) => number);
  /** What to forget when an object of this kind is deleted. */
  forget?: (obj: WatchedObject, ctx: Ctx) => void;
}

export interface ControllerSpec<Ctx> {
  name: string;
  /** The kind reconciled: its events enqueue the object's own key. */
  for: string;
  /** As `WatchSpec.relevance`, for the primary kind. */
  relevance?: (obj: WatchedObject) => unknown;
  watches?: WatchSpec<Ctx>[];
  /** What to forget when an object of the primary kind is deleted (its indexes, its store). */
  forget?: (obj: WatchedObject, ctx: Ctx) => void;
  reconcile: (key: string, ctx: Ctx) => Promise<ReconcileResult | void>;
  /** Keys reconciled at once. */
  concurrency?: number;
  /** Runs after each reconcile (e.g. start the run-time watches it found it needs). */
  after?: (ctx: Ctx) => Promise<void>;
}

/** What the manager needs of a work queue. */
export interface Queue {
  add(key: string): void;
  addAfter(key: string, delayMs: number): void;
  /** Whether a namespace other than `namespace` has keys queued or running. */
  othersActive?(namespace: string): boolean;
}

export type QueueFactory<Ctx> = (
  spec: ControllerSpec<Ctx>,
  reconcile: (key: string) => Promise<ReconcileResult | void>,
) => Queue;

export const keyOf = (obj: WatchedObject): string =>
  `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;

export function splitKey(key: string): { namespace: string; name: string } {
  const [namespace, name] = key.split("/");
  return { namespace, name };
}

const uidOf = (obj: WatchedObject) => obj.metadata?.uid ?? "";

function dropManagedFields(obj: WatchedObject): void {
  if (obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
}

/** The queue of a controller this process does not run: what others enqueue there is dropped. */
const DROPPING_QUEUE: Queue = { add: () => undefined, addAfter: () => undefined };

interface Route<Ctx> {
  queue: Queue;
  map: (obj: WatchedObject, phase: WatchPhase, ctx: Ctx) => string[];
  filter?: ChangeFilter<WatchedObject>;
  delayMs?: WatchSpec<Ctx>["delayMs"];
  forget?: (obj: WatchedObject, ctx: Ctx) => void;
}

export class Manager<Ctx> {
  readonly #kinds = new Map<
    string,
    { spec: KindSpec<WatchedObject>; cache: WatchCache<WatchedObject> }
  >();
  readonly #routes = new Map<string, Route<Ctx>[]>();
  readonly #queues = new Map<string, Queue>();

  /**
   * `runs` says whether this process runs a controller (PORCH_PEPR_RECONCILERS): one it does
   * not run gets a queue that drops every key, and no event reaches it.
   */
  constructor(
    private readonly ctx: () => Ctx,
    private readonly makeQueue: QueueFactory<Ctx>,
    private readonly runs: (controller: string) => boolean = () => true,
  ) {}

  /** Declares a kind the manager watches (once per kind). */
  kind<T extends WatchedObject>(name: string, spec: KindSpec<T> = {}): WatchCache<T> {
    if (this.#kinds.has(name)) throw new Error(`kind ${name} declared twice`);
    const cache = (spec.cache ??
      new WatchCache<T>(spec.indexers ?? {})) as unknown as WatchCache<WatchedObject>;
    this.#kinds.set(name, { spec: spec as unknown as KindSpec<WatchedObject>, cache });
    return cache as unknown as WatchCache<T>;
  }

  /** The kinds declared, in declaration order: one watch each. */
  get kinds(): string[] {
    return [...this.#kinds.keys()];
  }

  cache<T extends WatchedObject>(kind: string): WatchCache<T> {
    const entry = this.#kinds.get(kind);
    if (!entry) throw new Error(`kind ${kind} is not watched`);
    return entry.cache as unknown as WatchCache<T>;
  }

  /** Adds a controller; its kinds must have been declared. Returns its queue. */
  controller(spec: ControllerSpec<Ctx>): Queue {
    if (this.#queues.has(spec.name)) throw new Error(`controller ${spec.name} declared twice`);
    if (!this.runs(spec.name)) {
      this.#queues.set(spec.name, DROPPING_QUEUE);
      return DROPPING_QUEUE;
    }
    const queue = this.makeQueue(spec, async key => {
      const result = await spec.reconcile(key, this.ctx());
      await spec.after?.(this.ctx());
      return result;
    });
    this.#queues.set(spec.name, queue);
    this.#route(spec.for, {
      queue,
      map: obj => [keyOf(obj)],
      filter: spec.relevance && new ChangeFilter(spec.relevance),
      forget: spec.forget,
    });
    for (const watch of spec.watches ?? [])
      this.#route(watch.kind, {
        queue,
        map: watch.map,
        filter: watch.relevance && new ChangeFilter(watch.relevance),
        delayMs: watch.delayMs,
        forget: watch.forget,
      });
    return queue;
  }

  queue(name: string): Queue {
    const queue = this.#queues.get(name);
    if (!queue) throw new Error(`no controller ${name}`);
    return queue;
  }

  /**
   * One watch event of `kind`: slims the object in place, updates the kind's cache, then lets
   * every controller watching the kind enqueue the keys it maps to. Never throws: a watch
   * callback that throws is only logged by Pepr, and one controller's mapping must not keep
   * the others from seeing the event.
   */
  onEvent(
    kind: string,
    obj: WatchedObject,
    phase: WatchPhase,
    onError: (e: unknown) => void,
  ): void {
    const entry = this.#kinds.get(kind);
    if (!entry) return;
    dropManagedFields(obj);
    entry.spec.slim?.(obj);
    if (phase === "DELETED") entry.cache.remove(obj);
    else entry.cache.upsert(obj);
    const ctx = this.ctx();
    for (const route of this.#routes.get(kind) ?? []) {
      try {
        this.#deliver(route, obj, phase, ctx);
      } catch (error) {
        onError(error);
      }
    }
  }

  #deliver(route: Route<Ctx>, obj: WatchedObject, phase: WatchPhase, ctx: Ctx): void {
    if (phase === "DELETED") {
      route.filter?.forget(uidOf(obj));
      route.forget?.(obj, ctx);
    } else if (route.filter && !route.filter.changed(uidOf(obj), obj)) return;
    const keys = route.map(obj, phase, ctx);
    if (keys.length === 0) return;
    const delayMs =
      typeof route.delayMs === "function" ? route.delayMs(obj, ctx) : (route.delayMs ?? 0);
    for (const key of keys) {
      if (delayMs > 0) route.queue.addAfter(key, delayMs);
      else route.queue.add(key);
    }
  }

  #route(kind: string, route: Route<Ctx>): void {
    if (!this.#kinds.has(kind)) throw new Error(`kind ${kind} is not declared`);
    this.#routes.set(kind, [...(this.#routes.get(kind) ?? []), route]);
  }
}
