// Writes to git whose push is under way, so their reconcile need not wait for it in a worker: a
// new draft's branch (source.ts) or a lifecycle move (lifecycle.ts) is handed in and the
// reconcile ends; when the push lands (or fails), the revision is enqueued again and its next
// reconcile takes the result and goes on from there. Process memory only: after a restart the
// level-triggered steps find the revision in git as it is (moved, or not) and go on from that.
import type { PackageRevisionInfo } from "../../lib/git";

/** What a handed-in write's next reconcile goes on with; `H` is what the step kept of its work. */
export type Landing<H> =
  | { state: "pending" }
  | { state: "landed"; info: PackageRevisionInfo; held: H }
  | { state: "failed"; error: unknown; held: H };

interface Entry<H> {
  uid: string;
  repository: string;
  held: H;
  /** What the entry costs against the bounds below (in the registry's unit). */
  cost: number;
  landing: Landing<H>;
}

/**
 * What handed-in writes may hold while their pushes are out, in the registry's unit (bytes of
 * rendered files for drafts, moves for moves): a tenant's slow git server would otherwise let
 * every write of theirs be handed in and held. Past a bound a write is pushed the way it was
 * before, its reconcile waiting in a worker (so the tenant's worker share throttles it).
 */
export interface HeldBounds {
  /** By all handed-in writes. */
  total: number;
  /** By one namespace's. */
  perNamespace: number;
}

/** Drafts, in bytes: each keeps its rendered files until its next reconcile. */
export const DEFAULT_HELD_BOUNDS: HeldBounds = {
  total: 64 * 1024 * 1024,
  perNamespace: 16 * 1024 * 1024,
};

/**
 * Moves, counted: a move holds little (its queued ref updates, a promise, about a KiB), and
 * its repository's pushes take at most 100 refs each, one push of a repository at a time; 1,024
 * per namespace let a fleet of 1,000 revisions be proposed or published at once without one
 * move waiting in a worker (at 256, the moves past it waited in workers, each push waiting for
 * writers queued behind them: 1,000 proposals did not end in 400 s).
 */
export const MOVE_BOUNDS: HeldBounds = { total: 4096, perNamespace: 1024 };

/** What a draft's files take in the heap: UTF-16 text and a little per file. */
export function heldBytes(files: Record<string, string>): number {
  let bytes = 0;
  for (const [path, text] of Object.entries(files)) bytes += 2 * (path.length + text.length) + 96;
  return bytes;
}

const namespaceOf = (repository: string) => repository.slice(0, repository.indexOf("/"));

export class PendingWrites<H> {
  readonly #entries = new Map<string, Entry<H>>();
  /** Entries per repository ("namespace/name"): writers handed in, not yet gone on. */
  readonly #perRepository = new Map<string, number>();
  /** Writes per repository whose reconcile waits for the push in its worker. */
  readonly #awaited = new Map<string, number>();
  #wake: (key: string) => void = () => {};
  #heldTotal = 0;
  readonly #heldPerNamespace = new Map<string, number>();

  constructor(private readonly bounds: HeldBounds = DEFAULT_HELD_BOUNDS) {}

  /** Whether a write costing `cost` may be handed in for `repository` ("namespace/name"). */
  hasRoom(repository: string, cost: number): boolean {
    const namespace = this.#heldPerNamespace.get(namespaceOf(repository)) ?? 0;
    return (
      this.#heldTotal + cost <= this.bounds.total && namespace + cost <= this.bounds.perNamespace
    );
  }

  /** What handed-in writes hold, in all (in the registry's unit). */
  get held(): number {
    return this.#heldTotal;
  }

  /** How a revision whose push settled is reconciled again (the controller's add). */
  onSettled(wake: (key: string) => void): void {
    this.#wake = wake;
  }

  /** Hands a write's push in: `push` settles when its refs are in git, or fails. */
  handIn(
    key: string,
    uid: string,
    repository: string,
    held: H,
    cost: number,
    push: Promise<PackageRevisionInfo>,
  ): void {
    const entry: Entry<H> = { uid, repository, held, cost, landing: { state: "pending" } };
    this.forget(key);
    this.#entries.set(key, entry);
    this.#perRepository.set(repository, this.handedIn(repository) + 1);
    this.#hold(repository, cost);
    const settle = (landing: Landing<H>) => {
      if (this.#entries.get(key) !== entry) return;
      entry.landing = landing;
      this.#wake(key);
    };
    push.then(
      info => settle({ state: "landed", info, held }),
      (error: unknown) => settle({ state: "failed", error, held }),
    );
  }

  /**
   * A write pushed while its reconcile waits in its worker: counted with the handed-in ones
   * until it settles (unless `counted` is false: it was never among the writers on their way),
   * so the push does not wait for its own writer; and while it waits, its repository's push
   * goes at once (awaited).
   */
  async writing<T>(repository: string, push: Promise<T>, counted = true): Promise<T> {
    if (counted) this.#perRepository.set(repository, this.handedIn(repository) + 1);
    this.#awaited.set(repository, this.awaited(repository) + 1);
    try {
      return await push;
    } finally {
      if (counted) this.#drop(repository);
      const left = this.awaited(repository) - 1;
      if (left > 0) this.#awaited.set(repository, left);
      else this.#awaited.delete(repository);
    }
  }

  /**
   * Writes of a repository whose reconcile waits for the push in a worker. A push lingering for
   * more writers would keep those workers, and the writers it waits for may be the ones queued
   * behind them: with every worker of a tenant so held, each push waited the whole linger.
   */
  awaited(repository: string): number {
    return this.#awaited.get(repository) ?? 0;
  }

  /**
   * The revision's handed-in write: pending (leave it), or settled (taken: the caller goes on
   * with it); undefined when none, or one of an earlier object of the same name.
   */
  take(key: string, uid: string): Landing<H> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.uid !== uid) return void this.forget(key);
    if (entry.landing.state !== "pending") this.forget(key);
    return entry.landing;
  }

  /** Drops a revision's entry (taken, or the object is gone). */
  forget(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#drop(entry.repository);
    this.#hold(entry.repository, -entry.cost);
  }

  #hold(repository: string, cost: number): void {
    const namespace = namespaceOf(repository);
    const held = (this.#heldPerNamespace.get(namespace) ?? 0) + cost;
    if (held > 0) this.#heldPerNamespace.set(namespace, held);
    else this.#heldPerNamespace.delete(namespace);
    this.#heldTotal += cost;
  }

  #drop(repository: string): void {
    const left = this.handedIn(repository) - 1;
    if (left > 0) this.#perRepository.set(repository, left);
    else this.#perRepository.delete(repository);
  }

  /** Writes of a repository handed in and not yet gone on with, or being pushed (writing). */
  handedIn(repository: string): number {
    return this.#perRepository.get(repository) ?? 0;
  }
}
