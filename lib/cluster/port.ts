/**
 * The cluster port: everything the operator asks of the Kubernetes API, as one narrow interface.
 * Reconcilers and admission rules take a `Cluster` as an argument; one adapter talks to a real
 * API server (capabilities/shared/cluster/fluent-client.ts), and unit tests use an in-memory
 * implementation. Errors are `ApiError`s (./errors.ts), whatever the adapter.
 */

/** Where a kind is served. `T` only types what `get` and `list` return. */
export interface ResourceKind<T extends KubeObject = KubeObject> {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** Never set: carries T for inference. */
  readonly __object?: T;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  // Typed loosely: the client library's types say Date, the wire says an RFC 3339 string.
  creationTimestamp?: unknown;
  deletionTimestamp?: unknown;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface ObjectRef {
  namespace?: string;
  name: string;
}

export interface ListOptions {
  namespace?: string;
  /**
   * Label selector: a map (every key must have the value; "" means "has the key") or a
   * selector string as the API takes it (set-based terms included).
   */
  labels?: Record<string, string> | string;
  /** Field selector: a map of equalities, e.g. {"spec.repository": "blueprints"}, or a string. */
  fields?: Record<string, string> | string;
  /**
   * Read pages only while at most this many objects are held: a caller with a bound learns that
   * there are more than it allows (the result then holds more than `atMost`, at most a page
   * more) without reading, or holding, all of them.
   */
  atMost?: number;
  /**
   * Only apiVersion, kind and metadata of each object (the API's PartialObjectMetadataList):
   * for callers that read nothing else, so a large spec or data is never transferred.
   */
  metadataOnly?: boolean;
}

/** RFC 6902 operations. */
export type JsonPatchOperation =
  | { op: "add" | "replace" | "test"; path: string; value: unknown }
  | { op: "remove"; path: string };

/** A JSON patch (a list of operations) or a JSON merge patch (an object). */
export type Patch = { json: JsonPatchOperation[] } | { merge: object };

export interface WriteOptions {
  /** Write the /status subresource. */
  status?: boolean;
}

export type EventType = "Normal" | "Warning";

export type WatchPhase = "ADDED" | "MODIFIED" | "DELETED";

export interface Watch {
  close(): void;
}

/** What a watch covers: every object of the kind, or those of one namespace, or one object. */
export interface WatchScope {
  namespace?: string;
  name?: string;
}

/** One group/version's resources, as discovery lists them. */
export interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

export interface Cluster {
  /**
   * The object, or undefined when the API says 404. A controller's context answers it from the
   * watch's cache for the kinds watched (./cached-reads.ts): it may lag by an event.
   */
  get<T extends KubeObject>(kind: ResourceKind<T>, ref: ObjectRef): Promise<T | undefined>;
  /** Every object matching, across pages (stopping past `atMost`). */
  list<T extends KubeObject>(kind: ResourceKind<T>, options?: ListOptions): Promise<T[]>;
  /**
   * Creates `obj`. With `tolerateExisting`, an AlreadyExists answer returns undefined instead of
   * failing. Kinds that are never stored (reviews) return the API's answer, status included.
   */
  create<T extends KubeObject>(
    kind: ResourceKind<T>,
    obj: T,
    options?: { tolerateExisting?: boolean },
  ): Promise<T | undefined>;
  patch<T extends KubeObject>(
    kind: ResourceKind<T>,
    ref: ObjectRef,
    patch: Patch,
    options?: WriteOptions,
  ): Promise<T>;
  /** Server-side apply of `obj` (forced) under `fieldManager`. */
  apply<T extends KubeObject>(
    kind: ResourceKind<T>,
    obj: T,
    fieldManager: string,
    options?: WriteOptions,
  ): Promise<T>;
  /** Deletes; false when there was nothing to delete. */
  delete(kind: ResourceKind, ref: ObjectRef): Promise<boolean>;
  /** Records an Event on `involved`; best effort: a failure is logged, never thrown. */
  event(involved: KubeObject, type: EventType, reason: string, message: string): Promise<void>;
  /** The resources one group/version serves (discovery). */
  resources(group: string, version: string): Promise<ApiResource[]>;
  /**
   * Watches a kind outside Pepr's bindings (one learnt at run time, or one object by name): the
   * objects there arrive first as ADDED, then every change.
   */
  watch(
    kind: ResourceKind,
    onEvent: (obj: KubeObject, phase: WatchPhase) => void,
    scope?: WatchScope,
  ): Promise<Watch>;
}

export const apiVersionOf = (kind: Pick<ResourceKind, "group" | "version">): string =>
  kind.group ? `${kind.group}/${kind.version}` : kind.version;

/**
 * The first operation of a JSON patch that writes a list or map computed from `obj` as read
 * (finalizers, ownerReferences, labels): the patch then applies to that version only and any
 * other gets 409 Conflict, so it never drops what another writer added since the read (a read
 * may come from a watch's cache). The queue retries the conflict with a newer read.
 */
export const onlyIfUnchanged = (obj: KubeObject): JsonPatchOperation[] =>
  obj.metadata?.resourceVersion
    ? [{ op: "replace", path: "/metadata/resourceVersion", value: obj.metadata.resourceVersion }]
    : [];

/** Where an object is: its namespace and name. */
export const refOf = (obj: KubeObject): ObjectRef => ({
  namespace: obj.metadata?.namespace,
  name: obj.metadata?.name ?? "",
});
