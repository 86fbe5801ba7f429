interface Cached {
  metadata?: {
    uid?: string;
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    managedFields?: unknown;
  };
}

/** Index name → the key an object is found under (undefined: not in that index). */
export type Indexers<T> = Record<string, (obj: T) => string | undefined>;

const TOMBSTONE_MS = 10 * 60_000;
/** How long an object held from a create's answer waits for the watch to deliver it. */
const UNCONFIRMED_MS = 2 * 60_000;

/**
 * Objects as a watch last delivered them, with indexes, so a reconcile finds what it needs
 * without a LIST. (A filtered LIST still makes the API server read and encode every object of
 * the namespace it matches: with a thousand variants reconciling a few times each, LISTs were
 * the API server's main cost, measured by npm run bench.)
 *
 * Like a client-go informer cache it may lag the API server by an event, so callers tolerate
 * that (deterministic names, creates that accept AlreadyExists, deletes that accept NotFound)
 * or LIST instead. A namespace is primed from one LIST before its first use, because a watch
 * does not say when it has delivered the initial state.
 */
export class WatchCache<T extends Cached> {
  readonly #byUid = new Map<string, T>();
  /** "namespace/name" → uid. */
  readonly #byName = new Map<string, string>();
  /** Copies that came from this process's own writes (`refresh`), not from the watch. */
  readonly #written = new WeakSet<T>();
  /** Objects held from a create's answer that no watch event or LIST has delivered yet (→ when). */
  readonly #unconfirmed = new Map<string, number>();
  #fed = false;
  readonly #indexes = new Map<string, Map<string, Set<string>>>();
  /** Recently deleted uids (→ when): a LIST that raced a deletion must not revive them. */
  readonly #deleted = new Map<string, number>();
  readonly #primed = new Map<string, Promise<void>>();

  constructor(private readonly indexers: Indexers<T>) {
    for (const name of Object.keys(indexers)) this.#indexes.set(name, new Map());
  }

  /**
   * From a watch event or a LIST; a copy older (by resourceVersion) than the one held is
   * ignored, and so is a copy of the same version: the one held is usually the watch's, which
   * the watch keeps anyway, and a LIST's copy beside it would hold every object twice. (A copy
   * from `refresh` is replaced by the watch's of the same version, for the same reason.)
   */
  upsert(obj: T): void {
    const uid = obj.metadata?.uid;
    if (!uid) return;
    this.#fed = true;
    this.#unconfirmed.delete(uid);
    this.#put(uid, obj);
  }

  /** Holds `obj` unless it was deleted or a copy as new is held; says whether it did. */
  #put(uid: string, obj: T): boolean {
    if (this.#deleted.has(uid)) return false;
    const held = this.#byUid.get(uid);
    const keep =
      held && (isOlder(obj, held) || (sameVersion(obj, held) && !this.#written.has(held)));
    if (keep) return false;
    if (held) this.#index(uid, held, drop);
    // managedFields are most of an object's size and nothing a reconcile reads. Dropped in
    // place, not copied: the watch that delivered the object keeps it too (see Manager).
    if (obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
    this.#byUid.set(uid, obj);
    this.#byName.set(nameOf(obj), uid);
    this.#index(uid, obj, add);
    return true;
  }

  /**
   * The answer to this process's own write: held instead of the copy there when newer, so a
   * reconcile that reads the cache next sees what it wrote even before the watch says so (and
   * does not, for example, create the same object again).
   *
   * A write's answer alone adds nothing the watch will not confirm: an update or patch only
   * replaces an object held, and a create (`created`) is added only to a cache a watch or
   * LIST feeds, and dropped if no event or LIST delivers it within two minutes (it was deleted
   * while the watch was away), so no object stays here that no event would update or remove.
   */
  refresh(obj: T, { created = false } = {}): void {
    const uid = obj.metadata?.uid;
    if (!uid || (created ? !this.#fed : !this.#byUid.has(uid))) return;
    this.#expireUnconfirmed();
    if (!this.#put(uid, obj)) return;
    this.#written.add(obj);
    if (created && !this.#unconfirmed.has(uid)) this.#unconfirmed.set(uid, Date.now());
  }

  #expireUnconfirmed(): void {
    const now = Date.now();
    for (const [uid, at] of this.#unconfirmed) {
      if (now - at < UNCONFIRMED_MS) break;
      this.#unconfirmed.delete(uid);
      const held = this.#byUid.get(uid);
      if (held) this.#forget(uid, held);
    }
  }

  /** The object held under this namespace and name. */
  named(ref: { namespace?: string; name: string }): T | undefined {
    this.#expireUnconfirmed();
    const uid = this.#byName.get(`${ref.namespace ?? ""}/${ref.name}`);
    return uid === undefined ? undefined : this.#byUid.get(uid);
  }

  remove(obj: T): void {
    const uid = obj.metadata?.uid;
    if (!uid) return;
    const now = Date.now();
    // Insertion order is time order: forget tombstones older than any LIST in flight.
    for (const [old, at] of this.#deleted) {
      if (now - at < TOMBSTONE_MS) break;
      this.#deleted.delete(old);
    }
    this.#deleted.set(uid, now);
    this.#unconfirmed.delete(uid);
    const held = this.#byUid.get(uid);
    if (held) this.#forget(uid, held);
  }

  #forget(uid: string, held: T): void {
    this.#index(uid, held, drop);
    this.#byUid.delete(uid);
    const name = nameOf(held);
    if (this.#byName.get(name) === uid) this.#byName.delete(name);
  }

  /** Fills `namespace` from one `list` (concurrent callers share it); a failure is retried next call. */
  prime(namespace: string, list: () => Promise<T[]>): Promise<void> {
    let primed = this.#primed.get(namespace);
    if (!primed) {
      primed = list().then(
        items => items.forEach(obj => this.upsert(obj)),
        error => {
          this.#primed.delete(namespace);
          throw error;
        },
      );
      this.#primed.set(namespace, primed);
    }
    return primed;
  }

  /** The objects `index` files under `key`. */
  by(index: string, key: string): T[] {
    this.#expireUnconfirmed();
    const uids = this.#indexes.get(index)?.get(key) ?? new Set<string>();
    return [...uids].map(uid => this.#byUid.get(uid)).filter((o): o is T => o !== undefined);
  }

  /** How many objects `by(index, key)` would return, without building the list. */
  count(index: string, key: string): number {
    return this.#indexes.get(index)?.get(key)?.size ?? 0;
  }

  get size(): number {
    return this.#byUid.size;
  }

  #index(uid: string, obj: T, op: typeof add): void {
    for (const [name, keyOf] of Object.entries(this.indexers)) {
      const key = keyOf(obj);
      if (key !== undefined) op(this.#indexes.get(name)!, key, uid);
    }
  }
}

const nameOf = (obj: Cached) => `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;

function sameVersion(obj: Cached, held: Cached): boolean {
  const version = obj.metadata?.resourceVersion;
  return version !== undefined && version === held.metadata?.resourceVersion;
}

/** resourceVersions are opaque, but the API server's are integers that only grow. */
function isOlder(obj: Cached, than: Cached): boolean {
  const a = Number(obj.metadata?.resourceVersion);
  const b = Number(than.metadata?.resourceVersion);
  return Number.isSafeInteger(a) && Number.isSafeInteger(b) && a < b;
}

function add(index: Map<string, Set<string>>, key: string, uid: string): void {
  const set = index.get(key) ?? new Set<string>();
  set.add(uid);
  index.set(key, set);
}

function drop(index: Map<string, Set<string>>, key: string, uid: string): void {
  const set = index.get(key);
  set?.delete(uid);
  if (set?.size === 0) index.delete(key);
}
