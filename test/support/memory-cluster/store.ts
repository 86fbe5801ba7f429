import { ApiError } from "../../../lib/cluster/errors";
import type { KubeObject, ObjectMeta, ResourceKind, WatchPhase } from "../../../lib/cluster/port";
import { apiVersionOf } from "../../../lib/cluster/port";
import type { Served } from "./kinds";
import { clone, deepEqual, isObject, type JsonObject } from "./patch";

/**
 * The objects and the bookkeeping the API server does on every write: uid, creationTimestamp,
 * the resourceVersion counter, generation, and deletion held by finalizers. Callers hand in
 * copies and get stored objects back; they copy before anything leaves the fake.
 */

export type StoredObject = KubeObject & JsonObject & { metadata: ObjectMeta & JsonObject };

export type WriteListener = (phase: WatchPhase, obj: KubeObject, kind: ResourceKind) => void;

export interface Entry {
  object: StoredObject;
  /** Field managers that applied to the object, `<manager>/status` for the status subresource. */
  managers: string[];
}

/** `packagevariants.config.porch.kpt.dev`, as API messages name a resource. */
export const resourceName = (kind: ResourceKind) =>
  kind.group ? `${kind.plural}.${kind.group}` : kind.plural;

export const notFound = (kind: ResourceKind, name: string) =>
  new ApiError(404, "NotFound", `${resourceName(kind)} "${name}" not found`);

export const conflict = (kind: ResourceKind, name: string) =>
  new ApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${resourceName(kind)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
  );

const invalid = (kind: ResourceKind, name: string, detail: string) =>
  new ApiError(422, "Invalid", `${kind.kind} "${name}" is invalid: ${detail}`);

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// generateName's alphabet: no vowels, no look-alikes.
const ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

// Fields the server owns: whatever a write says, they keep the stored value.
const SERVER_FIELDS = [
  "uid",
  "name",
  "namespace",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
  "resourceVersion",
  "managedFields",
] as const;

/** What generation tracks: everything but metadata (and status, when it is a subresource). */
function specOf(served: Served, obj: JsonObject): JsonObject {
  const rest: JsonObject = { ...obj };
  delete rest.metadata;
  delete rest.apiVersion;
  delete rest.kind;
  if (served.statusSubresource) delete rest.status;
  return rest;
}

export class Store {
  readonly #kinds = new Map<string, Map<string, Entry>>();
  readonly #listeners = new Set<WriteListener>();
  #version = 0;
  #uids = 0;
  #names = 0;

  constructor(private readonly now: () => Date) {}

  /** RFC 3339 to the second, as the API writes timestamps. */
  timestamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, "Z");
  }

  #table(served: Served): Map<string, Entry> {
    const key = `${served.kind.group}/${served.kind.plural}`;
    let table = this.#kinds.get(key);
    if (!table) this.#kinds.set(key, (table = new Map()));
    return table;
  }

  #key = (served: Served, namespace: string | undefined, name: string) =>
    `${served.kind.namespaced ? (namespace ?? "") : ""}/${name}`;

  entry(served: Served, namespace: string | undefined, name: string): Entry | undefined {
    return this.#table(served).get(this.#key(served, namespace, name));
  }

  /** In the API's order: etcd's, by the key `namespace/name` compared character by character. */
  entries(served: Served): Entry[] {
    return [...this.#table(served).entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, entry]) => entry);
  }

  onWrite(listener: WriteListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(phase: WatchPhase, served: Served, obj: StoredObject): void {
    for (const listener of [...this.#listeners]) listener(phase, clone(obj), served.kind);
  }

  #bump(obj: StoredObject): void {
    obj.metadata.resourceVersion = String(++this.#version);
  }

  #generatedName(served: Served, namespace: string | undefined, prefix: string): string {
    for (;;) {
      let n = this.#names++;
      let suffix = "";
      for (let i = 0; i < 5; i++, n = Math.floor(n / ALPHABET.length))
        suffix += ALPHABET[n % ALPHABET.length];
      const name = `${prefix}${suffix}`;
      if (!this.entry(served, namespace, name)) return name;
    }
  }

  /** Stores a new object (a copy the caller gave up), with the fields the server sets. */
  insert(served: Served, obj: StoredObject, managers: string[] = []): StoredObject {
    const { kind } = served;
    const meta = obj.metadata;
    if (!kind.namespaced) delete meta.namespace;
    if (!meta.name && meta.generateName)
      meta.name = this.#generatedName(served, meta.namespace, meta.generateName);
    const name = meta.name ?? "";
    if (!name)
      throw invalid(kind, name, "metadata.name: Required value: name or generateName is required");
    if (name.length > 253 || !DNS_SUBDOMAIN.test(name))
      throw invalid(kind, name, "metadata.name: Invalid value: not a lowercase RFC 1123 subdomain");
    if (this.entry(served, meta.namespace, name))
      throw new ApiError(409, "AlreadyExists", `${resourceName(kind)} "${name}" already exists`);
    Object.assign(obj, { apiVersion: apiVersionOf(kind), kind: kind.kind });
    for (const field of ["deletionTimestamp", "deletionGracePeriodSeconds", "managedFields"])
      delete meta[field];
    meta.uid = `00000000-0000-4000-8000-${(++this.#uids).toString(16).padStart(12, "0")}`;
    meta.creationTimestamp = this.timestamp();
    meta.generation = 1;
    if (served.statusSubresource) delete obj.status;
    this.#bump(obj);
    this.#table(served).set(this.#key(served, meta.namespace, name), { object: obj, managers });
    this.#emit("ADDED", served, obj);
    return obj;
  }

  /**
   * Writes `proposed` (a copy the caller gave up) over `entry`'s object, as an update of the
   * main resource or of /status. A `metadata.resourceVersion` in `proposed` other than the
   * stored one is a precondition that fails with 409, as for any update.
   */
  update(served: Served, entry: Entry, proposed: unknown, status: boolean): StoredObject {
    const { kind } = served;
    const current = entry.object;
    const name = current.metadata.name ?? "";
    if (!isObject(proposed) || !isObject(proposed.metadata))
      throw invalid(kind, name, "the patched object has no metadata");
    const meta = proposed.metadata as ObjectMeta & JsonObject;
    if (
      meta.resourceVersion !== undefined &&
      meta.resourceVersion !== current.metadata.resourceVersion
    )
      throw conflict(kind, name);
    if (meta.uid !== undefined && meta.uid !== current.metadata.uid) throw conflict(kind, name);
    if (meta.name !== undefined && meta.name !== name)
      throw new ApiError(
        400,
        "BadRequest",
        `the name of the object (${String(meta.name)}) does not match "${name}"`,
      );

    let next: StoredObject;
    if (status) {
      // /status writes nothing but status.
      next = clone(current);
      if (proposed.status === undefined) delete next.status;
      else next.status = clone(proposed.status);
    } else {
      next = clone(proposed) as StoredObject;
      const [from, to]: JsonObject[] = [current.metadata, next.metadata];
      for (const field of SERVER_FIELDS) {
        if (from[field] === undefined) delete to[field];
        else to[field] = clone(from[field]);
      }
      Object.assign(next, { apiVersion: current.apiVersion, kind: current.kind });
      if (served.statusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = clone(current.status);
      }
    }

    const terminating = current.metadata.deletionTimestamp !== undefined;
    const before = new Set(current.metadata.finalizers ?? []);
    if (terminating && (next.metadata.finalizers ?? []).some(f => !before.has(f)))
      throw invalid(
        kind,
        name,
        "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted",
      );
    if (deepEqual(next, current)) return current; // a no-op is not a write: no new resourceVersion
    if (!deepEqual(specOf(served, next), specOf(served, current)))
      next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    this.#bump(next);
    entry.object = next;
    this.#emit("MODIFIED", served, next);
    if (terminating && (next.metadata.finalizers ?? []).length === 0) this.#remove(served, entry);
    return entry.object;
  }

  /**
   * Deletes: an object with finalizers only gets deletionTimestamp (and, as for any kind without
   * graceful deletion, a new generation); it goes when its last finalizer does.
   */
  delete(served: Served, entry: Entry): void {
    const current = entry.object;
    if ((current.metadata.finalizers ?? []).length === 0) return this.#remove(served, entry);
    if (current.metadata.deletionTimestamp !== undefined) return;
    const next = clone(current);
    next.metadata.deletionTimestamp = this.timestamp();
    next.metadata.deletionGracePeriodSeconds = 0;
    next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    this.#bump(next);
    entry.object = next;
    this.#emit("MODIFIED", served, next);
  }

  #remove(served: Served, entry: Entry): void {
    const meta = entry.object.metadata;
    this.#table(served).delete(this.#key(served, meta.namespace, meta.name ?? ""));
    entry.object = clone(entry.object);
    this.#bump(entry.object);
    this.#emit("DELETED", served, entry.object);
  }
}
