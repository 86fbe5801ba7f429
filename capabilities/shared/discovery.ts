import { K8s, kind } from "pepr";
import { pathSegmentNameProblem } from "../../lib/validation";
import { httpStatus } from "./api-errors";

/** Where a kind is served: what a list or a watch needs and a label selector alone lacks. */
export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

/** The API serves no such kind (a CRD not installed yet): seed 000's NoMatchError. */
export class NoMatchError extends Error {}

/**
 * Tenants' objects are read only in their own namespace: a cluster-scoped kind is never listed
 * or fetched for them, whatever the allow-list says.
 */
export class ClusterScopedError extends Error {}

function namespacedPath(type: ResourceType, namespace: string): string {
  if (!type.namespaced || !namespace)
    throw new ClusterScopedError(
      `${apiVersionOf(type)}/${type.kind} is cluster-scoped; only namespaced kinds are read, in the object's own namespace`,
    );
  return `${groupVersionPath(type.group, type.version)}/namespaces/${segment(namespace)}/${type.plural}`;
}

/** A name as one path segment: never `..` or a `/` that would address another object. */
function segment(name: string): string {
  const problem = pathSegmentNameProblem(name);
  if (problem) throw new InvalidNameError(`object name ${JSON.stringify(name)} ${problem}`);
  return encodeURIComponent(name);
}

export class InvalidNameError extends Error {}

interface APIResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

const TTL_MS = 5 * 60_000;
const cache = new Map<string, { type: ResourceType; at: number }>();

/** GET any API path; Raw is typed after the model it hangs off, hence the cast. */
async function rawGet<T>(path: string): Promise<T> {
  return (await K8s(kind.Namespace).Raw(path)) as unknown as T;
}

const apiVersionOf = (t: ResourceType) => (t.group ? `${t.group}/${t.version}` : t.version);

export function groupVersionPath(group: string, version: string): string {
  return group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** Resolves apiVersion + kind to its resource through discovery; hits are cached briefly. */
export async function resolveKind(apiVersion: string, kindName: string): Promise<ResourceType> {
  const cacheKey = `${apiVersion}/${kindName}`;
  const hit = cache.get(cacheKey);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.type;
  const parts = apiVersion.split("/");
  const [group, version] = parts.length === 1 ? ["", apiVersion] : parts;
  if (parts.length > 2 || parts.some(p => p === "" || pathSegmentNameProblem(p)))
    throw new NoMatchError(`no kind "${kindName}" is registered for version "${apiVersion}"`);
  let list: APIResourceList;
  try {
    list = await rawGet<APIResourceList>(groupVersionPath(group, version));
  } catch (error) {
    if (httpStatus(error) === 404) {
      throw new NoMatchError(`no kind "${kindName}" is registered for version "${apiVersion}"`);
    }
    throw error;
  }
  const resource = list.resources.find(r => r.kind === kindName && !r.name.includes("/"));
  if (!resource)
    throw new NoMatchError(`no kind "${kindName}" is registered for version "${apiVersion}"`);
  const type = {
    group,
    version,
    kind: kindName,
    plural: resource.name,
    namespaced: resource.namespaced,
  };
  cache.set(cacheKey, { type, at: Date.now() });
  return type;
}

export interface ListedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    uid?: string;
  };
}

/** Lists objects of a namespaced kind in one namespace, filtered by the API server, all pages. */
export async function listObjects(
  type: ResourceType,
  namespace: string,
  selectors: { labelSelector?: string; fieldSelector?: string },
): Promise<ListedObject[]> {
  const path = namespacedPath(type, namespace);
  const items: ListedObject[] = [];
  let continueToken: string | undefined;
  do {
    const query = new URLSearchParams({ limit: "500" });
    if (selectors.labelSelector) query.set("labelSelector", selectors.labelSelector);
    if (selectors.fieldSelector) query.set("fieldSelector", selectors.fieldSelector);
    if (continueToken) query.set("continue", continueToken);
    let page: { items: ListedObject[]; metadata?: { continue?: string } };
    try {
      page = await rawGet(`${path}?${query.toString()}`);
    } catch (error) {
      // The kind went away since discovery (its CRD was deleted): forget it and say so.
      if (httpStatus(error) !== 404) throw error;
      cache.delete(`${apiVersionOf(type)}/${type.kind}`);
      throw new NoMatchError(
        `no kind "${type.kind}" is registered for version "${apiVersionOf(type)}"`,
      );
    }
    items.push(...page.items);
    continueToken = page.metadata?.continue || undefined;
  } while (continueToken);
  return items;
}

/** GET one object of a namespaced kind in one namespace; undefined when it does not exist. */
export async function getObject(
  type: ResourceType,
  namespace: string,
  name: string,
): Promise<ListedObject | undefined> {
  const path = `${namespacedPath(type, namespace)}/${segment(name)}`;
  try {
    return await rawGet<ListedObject>(path);
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw error;
  }
}
