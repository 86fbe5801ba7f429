import type { WatchCache } from "../controller/watch-cache";
import type { Cluster, KubeObject, ResourceKind } from "./port";

/** A kind whose watch cache holds whole objects (nothing a reader needs slimmed away). */
export interface CachedKind {
  kind: ResourceKind;
  cache: WatchCache<KubeObject>;
}

export const cachedKind = <T extends KubeObject>(
  kind: ResourceKind<T>,
  cache: WatchCache<T>,
): CachedKind => ({ kind, cache: cache as unknown as WatchCache<KubeObject> });

/**
 * A deep copy of an API object (JSON through and through). Not structuredClone: its copies are
 * made in Node's own realm, whose Object is not the one a test's VM context compares against.
 */
const copyOf = <T>(obj: T): T => JSON.parse(JSON.stringify(obj)) as T;

const kindKey = (kind: Pick<ResourceKind, "group" | "kind">) => `${kind.group}/${kind.kind}`;

/**
 * The cluster as a controller reads it: a `get` of a watched kind is answered from the watch's
 * cache, every write goes to the API server, as controller-runtime's manager client does. Each
 * reconcile used to GET the object it reconciles (and the Repository of every revision it
 * touched): about 12 of a variant's 29 requests in a fan-out.
 *
 * What a reader may see: the object as the watch last delivered it, or as this process's own
 * last write answered (whichever is newer by resourceVersion, which Kubernetes defines as
 * comparable within a resource since 1.35), so a reconcile that runs again right after its own
 * write does not redo it from an older copy, nor create again what it just created (see
 * WatchCache.refresh for why that never leaves an object behind). Not yet delivered (created
 * elsewhere), or not watched in this process (the admission webhook's): read from the API
 * server. The copy returned is the caller's to change.
 */
export function withCachedReads(cluster: Cluster, kinds: readonly CachedKind[]): Cluster {
  const caches = new Map(kinds.map(k => [kindKey(k.kind), k.cache]));
  const refreshed = async <T extends KubeObject>(
    kind: ResourceKind<T>,
    written: Promise<T | undefined>,
    created = false,
  ): Promise<T | undefined> => {
    const obj = await written;
    if (obj) caches.get(kindKey(kind))?.refresh(copyOf(obj), { created });
    return obj;
  };
  return {
    list: (kind, options) => cluster.list(kind, options),
    delete: (kind, ref) => cluster.delete(kind, ref),
    event: (involved, type, reason, message) => cluster.event(involved, type, reason, message),
    resources: (group, version) => cluster.resources(group, version),
    watch: (kind, onEvent, scope) => cluster.watch(kind, onEvent, scope),
    get: async (kind, ref) => {
      const held = caches.get(kindKey(kind))?.named(ref);
      return held ? (copyOf(held) as never) : cluster.get(kind, ref);
    },
    create: (kind, obj, options) => refreshed(kind, cluster.create(kind, obj, options), true),
    patch: async (kind, ref, patch, options) =>
      (await refreshed(kind, cluster.patch(kind, ref, patch, options)))!,
    apply: async (kind, obj, fieldManager, options) =>
      (await refreshed(kind, cluster.apply(kind, obj, fieldManager, options)))!,
  };
}
