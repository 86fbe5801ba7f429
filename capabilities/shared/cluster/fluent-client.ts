import { fetch, K8s, kind as kfcKind } from "kubernetes-fluent-client";
import { FetchMethods } from "kubernetes-fluent-client/dist/fluent/shared-types.js";
import { k8sCfg } from "kubernetes-fluent-client/dist/fluent/utils.js";
import { ApiError } from "../../../lib/cluster/errors";
import { EventKind } from "../../../lib/cluster/kinds";
import { fieldSelector, labelSelector } from "../../../lib/cluster/selectors";
import type {
  ApiResource,
  Cluster,
  KubeObject,
  ListOptions,
  ObjectRef,
  Patch,
  ResourceKind,
  WatchPhase,
} from "../../../lib/cluster/port";
import { apiVersionOf } from "../../../lib/cluster/port";
import { errorMessage } from "../../../lib/errors";

/**
 * The `Cluster` port over kubernetes-fluent-client (the client Pepr ships): the one file that
 * talks to the client. Requests go through KFC's `fetch` with the connection options it derives
 * from the kubeconfig or the in-cluster service account (tuned by ./kube-client-tuning.ts), so
 * this adapter controls the URL, the query and the content type of every call: field managers
 * of our choosing, /status writes, pagination, and "404 means undefined" in one place.
 */

export interface ClusterLog {
  warn(message: string): void;
}

const PAGE_SIZE = 500;

/**
 * Metadata only, as the API server's PartialObjectMetadataList; a server that cannot (an
 * aggregated API) answers whole objects, which callers read the same way.
 */
const METADATA_ONLY =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

/** One path segment: encoded, and never `.`/`..` (a URL parser would resolve those away). */
function segment(value: string): string {
  if (value === "" || value === "." || value === "..")
    throw new Error(`invalid object name ${JSON.stringify(value)}`);
  return encodeURIComponent(value);
}

function collectionPath(kind: ResourceKind, namespace?: string): string {
  const base = kind.group ? `/apis/${kind.group}/${kind.version}` : `/api/${kind.version}`;
  const ns = kind.namespaced && namespace ? `/namespaces/${segment(namespace)}` : "";
  return `${base}${ns}/${kind.plural}`;
}

const objectPath = (kind: ResourceKind, ref: ObjectRef) =>
  `${collectionPath(kind, ref.namespace)}/${segment(ref.name)}`;

interface Status {
  message?: string;
  reason?: string;
}

async function request<T>(
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  options: {
    query?: Record<string, string>;
    body?: unknown;
    contentType?: string;
    accept?: string;
  } = {},
): Promise<T> {
  const { opts, serverUrl } = await k8sCfg(method as FetchMethods);
  const url = new URL(path, serverUrl.toString());
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
  const headers: Record<string, string> = { ...(opts.headers as Record<string, string>) };
  if (options.body !== undefined)
    headers["Content-Type"] = options.contentType ?? "application/json";
  if (options.accept) headers["Accept"] = options.accept;
  const response = await fetch<T | Status>(url, {
    ...opts,
    method,
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  if (response.ok) return response.data as T;
  // No answer at all (connection refused, reset, TLS): not an API error, so callers retry it.
  const failure = (response as { e?: unknown }).e;
  if (failure !== undefined && response.data === undefined)
    throw new Error(`${method} ${url.pathname}: ${errorMessage(failure)}`);
  const status = (typeof response.data === "object" ? response.data : undefined) as
    | Status
    | undefined;
  const detail = status?.message ?? (typeof response.data === "string" ? response.data : undefined);
  throw new ApiError(
    response.status,
    status?.reason ?? response.statusText ?? "",
    `${response.status} ${response.statusText ?? ""}${detail ? `: ${detail}` : ""}`.trim(),
  );
}

const tolerating =
  (status: number, reason?: string) =>
  (error: unknown): undefined => {
    if (
      error instanceof ApiError &&
      error.status === status &&
      (!reason || error.reason === reason)
    )
      return undefined;
    throw error;
  };

const reportingComponent = "porch-pepr";
const reportingInstance = process.env.HOSTNAME ?? "porch-pepr";

export function fluentCluster(log: ClusterLog): Cluster {
  const cluster: Cluster = {
    get: <T extends KubeObject>(kind: ResourceKind<T>, ref: ObjectRef) =>
      request<T>("GET", objectPath(kind, ref)).catch(tolerating(404)),

    async list<T extends KubeObject>(kind: ResourceKind<T>, options: ListOptions = {}) {
      const items: T[] = [];
      const atMost = options.atMost ?? Infinity;
      // A bounded caller needs one object past its bound to know it is over: no more.
      const query: Record<string, string> = { limit: String(Math.min(PAGE_SIZE, atMost + 1)) };
      const labels = labelSelector(options.labels);
      const fields = fieldSelector(options.fields);
      if (labels) query.labelSelector = labels;
      if (fields) query.fieldSelector = fields;
      let next: string | undefined;
      do {
        const page = await request<{ items?: T[]; metadata?: { continue?: string } }>(
          "GET",
          collectionPath(kind, options.namespace),
          {
            query: next ? { ...query, continue: next } : query,
            ...(options.metadataOnly && { accept: METADATA_ONLY }),
          },
        );
        // A list's items carry no apiVersion/kind (a metadata list's say PartialObjectMetadata);
        // callers compare objects by them.
        for (const item of page.items ?? [])
          items.push({ ...item, apiVersion: apiVersionOf(kind), kind: kind.kind });
        next = page.metadata?.continue || undefined;
      } while (next && items.length <= atMost);
      return items;
    },

    create: <T extends KubeObject>(
      kind: ResourceKind<T>,
      obj: T,
      options: { tolerateExisting?: boolean } = {},
    ) => {
      const written = request<T>("POST", collectionPath(kind, obj.metadata?.namespace), {
        body: { apiVersion: apiVersionOf(kind), kind: kind.kind, ...obj },
      });
      return options.tolerateExisting ? written.catch(tolerating(409, "AlreadyExists")) : written;
    },

    patch: <T extends KubeObject>(
      kind: ResourceKind<T>,
      ref: ObjectRef,
      patch: Patch,
      options: { status?: boolean } = {},
    ) =>
      request<T>("PATCH", `${objectPath(kind, ref)}${options.status ? "/status" : ""}`, {
        body: "json" in patch ? patch.json : patch.merge,
        contentType:
          "json" in patch ? "application/json-patch+json" : "application/merge-patch+json",
      }),

    apply: <T extends KubeObject>(
      kind: ResourceKind<T>,
      obj: T,
      fieldManager: string,
      options: { status?: boolean } = {},
    ) => {
      const ref = { namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? "" };
      return request<T>("PATCH", `${objectPath(kind, ref)}${options.status ? "/status" : ""}`, {
        query: { fieldManager, force: "true" },
        body: { apiVersion: apiVersionOf(kind), kind: kind.kind, ...obj },
        contentType: "application/apply-patch+yaml",
      });
    },

    delete: (kind: ResourceKind, ref: ObjectRef) =>
      request("DELETE", objectPath(kind, ref)).then(
        () => true,
        error => tolerating(404)(error) ?? false,
      ),

    async event(involved, type, reason, message) {
      const now = new Date().toISOString();
      const meta = involved.metadata ?? {};
      try {
        await cluster.create(EventKind, {
          metadata: { namespace: meta.namespace, generateName: `${meta.name}.` },
          involvedObject: {
            apiVersion: involved.apiVersion,
            kind: involved.kind,
            name: meta.name,
            namespace: meta.namespace,
            uid: meta.uid,
          },
          type,
          reason,
          message,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
          source: { component: reportingComponent },
          reportingComponent,
          reportingInstance,
        });
      } catch (error) {
        log.warn(
          `could not record event ${reason} on ${involved.kind} ${meta.name}: ${errorMessage(error)}`,
        );
      }
    },

    async resources(group: string, version: string) {
      const path = group
        ? `/apis/${segment(group)}/${segment(version)}`
        : `/api/${segment(version)}`;
      const list = await request<{ resources?: ApiResource[] }>("GET", path);
      return list.resources ?? [];
    },

    async watch(kind, onEvent, scope = {}) {
      const watcher = K8s(kfcKind.GenericKind, {
        // A name becomes a field selector (metadata.name=…): the API sends that object only.
        ...(scope.namespace !== undefined && { namespace: scope.namespace }),
        ...(scope.name !== undefined && { name: scope.name }),
        kindOverride: {
          group: kind.group,
          version: kind.version,
          kind: kind.kind,
          plural: kind.plural,
        },
      }).Watch((obj, phase) => onEvent(obj as KubeObject, phase as WatchPhase));
      await watcher.start();
      return { close: () => watcher.close() };
    },
  };
  return cluster;
}
