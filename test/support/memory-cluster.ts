import { ApiError } from "../../lib/cluster/errors";
import { NamespaceKind } from "../../lib/cluster/kinds";
import type {
  ApiResource,
  Cluster,
  EventType,
  KubeObject,
  ListOptions,
  ObjectRef,
  Patch,
  ResourceKind,
  Watch,
  WatchPhase,
  WatchScope,
  WriteOptions,
} from "../../lib/cluster/port";
import { refOf } from "../../lib/cluster/port";
import { Journal, type RecordedEvent, type Verb } from "./memory-cluster/journal";
import { kindKey, Registry, type Served, type ServeOptions } from "./memory-cluster/kinds";
import { checkName, tolerate } from "./memory-cluster/adapter";
import {
  appliedFields,
  applyFields,
  applyJsonPatch,
  applyMergePatch,
  clone,
} from "./memory-cluster/patch";
import { answerReview, type ReviewAnswers } from "./memory-cluster/reviews";
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from "./memory-cluster/selectors";
import {
  conflict,
  notFound,
  Store,
  type StoredObject,
  type WriteListener,
} from "./memory-cluster/store";

export type { RecordedEvent, ServeOptions, Verb, WriteListener };

/**
 * An in-memory `Cluster` for unit tests of reconcilers: it answers as a kube-apiserver (seen
 * through our adapter) would, so a reconciler tested against it sees the same objects, versions
 * and errors. Everything in and out is a copy: a test cannot change stored state by accident.
 */

export interface MemoryClusterOptions extends ReviewAnswers {
  /**
   * Refuse creates in a namespace with no Namespace object, or a terminating one, as the
   * NamespaceLifecycle admission plugin does. Off by default: few tests create Namespaces.
   */
  requireNamespaces?: boolean;
  /** The clock for timestamps. */
  now?: () => Date;
}

export class MemoryCluster implements Cluster {
  /** Every `event()` call, in order. */
  readonly events: RecordedEvent[] = [];
  readonly #journal = new Journal();
  /** Every call, as `verb Kind namespace/name` (`(status)` appended for /status writes). */
  readonly calls = this.#journal.calls;
  readonly #kinds = new Registry();
  readonly #store: Store;
  readonly #options: MemoryClusterOptions;

  constructor(options: MemoryClusterOptions = {}) {
    this.#options = options;
    this.#store = new Store(options.now ?? (() => new Date()));
  }

  /** Serves another kind (as installing its CRD would); discovery lists it from now on. */
  serve(kind: ResourceKind, options?: ServeOptions): this {
    this.#kinds.serve(kind, options);
    return this;
  }

  /** The next `verb` on a kind named `kindName` ("*": any kind) throws `error`, once. */
  failNext(verb: Verb, kindName: string, error: Error): void {
    this.#journal.failNext(verb, kindName, error);
  }

  /** Sees every write as it happens (synchronously, a copy of the object written). */
  onWrite(listener: WriteListener): () => void {
    return this.#store.onWrite(listener);
  }

  /** The field managers that applied to an object, `<manager>/status` for /status applies. */
  managers(kind: ResourceKind, ref: ObjectRef): string[] {
    const entry = this.#store.entry(this.#kinds.storable(kind), ref.namespace, ref.name);
    return [...(entry?.managers ?? [])];
  }

  #checkNamespace(namespace: string): void {
    if (!this.#options.requireNamespaces) return;
    const ns = this.#store.entry(this.#kinds.served(NamespaceKind), undefined, namespace)?.object;
    if (!ns) throw notFound(NamespaceKind, namespace);
    if (ns.metadata.deletionTimestamp !== undefined)
      throw new ApiError(
        403,
        "Forbidden",
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
  }

  #insert(served: Served, obj: KubeObject, managers?: string[]): StoredObject {
    const body = clone({ ...obj, metadata: obj.metadata ?? {} }) as StoredObject;
    const namespace = body.metadata.namespace;
    if (served.kind.namespaced) {
      // The adapter posts to the all-namespaces collection, which takes no POST.
      if (!namespace)
        throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method");
      this.#checkNamespace(namespace);
    }
    return this.#store.insert(served, body, managers);
  }

  async get<T extends KubeObject>(kind: ResourceKind<T>, ref: ObjectRef): Promise<T | undefined> {
    try {
      this.#journal.record("get", kind, ref);
      checkName(ref.name);
      const entry = this.#store.entry(this.#kinds.storable(kind), ref.namespace, ref.name);
      return entry && (clone(entry.object) as T);
    } catch (error) {
      return tolerate(error, 404, undefined);
    }
  }

  async list<T extends KubeObject>(kind: ResourceKind<T>, options: ListOptions = {}) {
    this.#journal.record("list", kind, { namespace: options.namespace });
    const served = this.#kinds.storable(kind);
    const labels = parseLabelSelector(options.labels);
    const fields = parseFieldSelector(options.fields, path => served.selectable.has(path));
    const namespace = kind.namespaced ? options.namespace : undefined;
    const matching = this.#store
      .entries(served)
      .map(entry => entry.object)
      .filter(obj => !namespace || obj.metadata.namespace === namespace)
      .filter(obj => matchesLabels(obj.metadata.labels, labels) && matchesFields(obj, fields));
    // As the API's pages: one object past `atMost` tells the caller it is over.
    return matching
      .slice(0, options.atMost === undefined ? undefined : options.atMost + 1)
      .map(obj =>
        options.metadataOnly
          ? ({
              apiVersion: obj.apiVersion,
              kind: obj.kind,
              metadata: clone(obj.metadata),
            } as unknown as T)
          : (clone(obj) as T),
      );
  }

  async create<T extends KubeObject>(
    kind: ResourceKind<T>,
    obj: T,
    options: { tolerateExisting?: boolean } = {},
  ): Promise<T | undefined> {
    const meta = obj.metadata ?? {};
    try {
      this.#journal.record("create", kind, {
        ...meta,
        name: meta.name ?? (meta.generateName && `${meta.generateName}*`),
      });
      const served = this.#kinds.served(kind);
      if (served.review) return answerReview(kind, obj, this.#options) as T;
      return clone(this.#insert(served, obj)) as T;
    } catch (error) {
      if (options.tolerateExisting) return tolerate(error, 409, undefined, "AlreadyExists");
      throw error;
    }
  }

  async patch<T extends KubeObject>(
    kind: ResourceKind<T>,
    ref: ObjectRef,
    patch: Patch,
    options: WriteOptions = {},
  ): Promise<T> {
    this.#journal.record("patch", kind, ref, options.status);
    checkName(ref.name);
    const served = this.#kinds.storable(kind);
    const entry = this.#store.entry(served, ref.namespace, ref.name);
    // No /status path on a kind without the subresource: 404 as for a missing object.
    if (!entry || (options.status && !served.statusSubresource)) throw notFound(kind, ref.name);
    const proposed =
      "json" in patch
        ? applyJsonPatch(entry.object, clone(patch.json))
        : applyMergePatch(entry.object, clone(patch.merge));
    return clone(this.#store.update(served, entry, proposed, options.status ?? false)) as T;
  }

  async apply<T extends KubeObject>(
    kind: ResourceKind<T>,
    obj: T,
    fieldManager: string,
    options: WriteOptions = {},
  ): Promise<T> {
    const ref = refOf(obj);
    const status = options.status ?? false;
    this.#journal.record("apply", kind, ref, status);
    checkName(ref.name);
    const served = this.#kinds.storable(kind);
    const manager = status ? `${fieldManager}/status` : fieldManager;
    const entry = this.#store.entry(served, ref.namespace, ref.name);
    const stale = obj.metadata?.resourceVersion;
    if (stale !== undefined && stale !== entry?.object.metadata.resourceVersion)
      throw conflict(kind, ref.name);
    if (!entry) {
      if (status || (kind.namespaced && !ref.namespace)) throw notFound(kind, ref.name);
      return clone(this.#insert(served, obj, [manager])) as T;
    }
    if (status && !served.statusSubresource) throw notFound(kind, ref.name);
    const proposed = applyFields(entry.object, appliedFields(clone(obj) as StoredObject, status));
    const written = this.#store.update(served, entry, proposed, status);
    if (!entry.managers.includes(manager)) entry.managers.push(manager);
    return clone(written) as T;
  }

  async delete(kind: ResourceKind, ref: ObjectRef): Promise<boolean> {
    try {
      this.#journal.record("delete", kind, ref);
      checkName(ref.name);
      const served = this.#kinds.storable(kind);
      const entry = this.#store.entry(served, ref.namespace, ref.name);
      if (!entry) return false;
      this.#store.delete(served, entry);
      return true;
    } catch (error) {
      return tolerate(error, 404, false);
    }
  }

  async event(involved: KubeObject, type: EventType, reason: string, message: string) {
    const { namespace, name } = involved.metadata ?? {};
    this.#journal.note("event", involved.kind, [namespace, name].filter(Boolean).join("/"));
    this.events.push({ type, reason, message, kind: involved.kind, namespace, name });
  }

  async resources(group: string, version: string): Promise<ApiResource[]> {
    this.#journal.note("resources", group ? `${group}/${version}` : version);
    return this.#kinds.discovery(group, version);
  }

  /**
   * Like the adapter's watcher: the objects already there arrive first as ADDED (its initial
   * list), then every later write. Delivered on a microtask, never inside the writer's call.
   */
  async watch(
    kind: ResourceKind,
    onEvent: (obj: KubeObject, phase: WatchPhase) => void,
    scope: WatchScope = {},
  ): Promise<Watch> {
    const target = [scope.namespace, scope.name].filter(Boolean).join("/");
    this.#journal.note("watch", kind.kind, target || undefined);
    const served = this.#kinds.storable(kind);
    let open = true;
    const inScope = (obj: KubeObject) =>
      (scope.namespace === undefined || obj.metadata?.namespace === scope.namespace) &&
      (scope.name === undefined || obj.metadata?.name === scope.name);
    const deliver = (obj: KubeObject, phase: WatchPhase) =>
      inScope(obj) && queueMicrotask(() => open && onEvent(obj, phase));
    for (const entry of this.#store.entries(served)) deliver(clone(entry.object), "ADDED");
    const stop = this.#store.onWrite((phase, obj, written) => {
      if (kindKey(written) === kindKey(kind)) deliver(obj, phase);
    });
    return {
      close: () => {
        open = false;
        stop();
      },
    };
  }
}
