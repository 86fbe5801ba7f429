import { isNotFound } from "../../lib/cluster/errors";
import type { Cluster, KubeObject, ResourceKind } from "../../lib/cluster/port";
import { pathSegmentNameProblem } from "../../lib/validation";

/** Where a kind is served: what a list or a watch needs and a label selector alone lacks. */
export type ResourceType = ResourceKind;

/**
 * The API serves no such kind (a CRD not installed yet): a set reports NoMatchingTargets
 * (docs/package-variant-sets.md, “Targets”).
 */
export class NoMatchError extends Error {}

/**
 * Tenants' objects are read only in their own namespace: a cluster-scoped kind is never listed
 * or fetched for them, whatever the allow-list says.
 */
export class ClusterScopedError extends Error {}

function namespaced(type: ResourceType, namespace: string): string {
  if (!type.namespaced || !namespace)
    throw new ClusterScopedError(
      `${apiVersionOf(type)}/${type.kind} is cluster-scoped; only namespaced kinds are read, in the object's own namespace`,
    );
  return segment(namespace);
}

/** A name as one path segment: never `..` or a `/` that would address another object. */
function segment(name: string): string {
  const problem = pathSegmentNameProblem(name);
  if (problem) throw new InvalidNameError(`object name ${JSON.stringify(name)} ${problem}`);
  return name;
}

export class InvalidNameError extends Error {}

const TTL_MS = 5 * 60_000;
const apiVersionOf = (t: ResourceType) => (t.group ? `${t.group}/${t.version}` : t.version);

const noMatch = (kindName: string, apiVersion: string) =>
  new NoMatchError(`no kind "${kindName}" is registered for version "${apiVersion}"`);

export type ListedObject = KubeObject;

/**
 * Reads of kinds known only at run time (what PackageVariantSets select, what PackageVariants
 * inject), resolved through discovery; resolutions are cached briefly.
 */
export class Discovery {
  readonly #cache = new Map<string, { type: ResourceType; at: number }>();

  constructor(private readonly cluster: Cluster) {}

  /** Resolves apiVersion + kind to its resource through discovery. */
  async resolveKind(apiVersion: string, kindName: string): Promise<ResourceType> {
    const cacheKey = `${apiVersion}/${kindName}`;
    const hit = this.#cache.get(cacheKey);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.type;
    const parts = apiVersion.split("/");
    const [group, version] = parts.length === 1 ? ["", apiVersion] : parts;
    if (parts.length > 2 || parts.some(p => p === "" || pathSegmentNameProblem(p)))
      throw noMatch(kindName, apiVersion);
    const resources = await this.cluster.resources(group, version).catch(error => {
      throw isNotFound(error) ? noMatch(kindName, apiVersion) : error;
    });
    const resource = resources.find(r => r.kind === kindName && !r.name.includes("/"));
    if (!resource) throw noMatch(kindName, apiVersion);
    const type = {
      group,
      version,
      kind: kindName,
      plural: resource.name,
      namespaced: resource.namespaced,
    };
    this.#cache.set(cacheKey, { type, at: Date.now() });
    return type;
  }

  /**
   * Lists the metadata (nothing else) of objects of a namespaced kind in one namespace, filtered
   * by the API server; past `atMost` objects it stops reading (ListOptions.atMost).
   */
  listObjects(
    type: ResourceType,
    namespace: string,
    selectors: { labelSelector?: string; fieldSelector?: string; atMost?: number },
  ): Promise<ListedObject[]> {
    const options = {
      namespace: namespaced(type, namespace),
      labels: selectors.labelSelector,
      fields: selectors.fieldSelector,
      atMost: selectors.atMost,
      metadataOnly: true,
    };
    return this.cluster.list(type, options).catch(error => {
      // The kind went away since discovery (its CRD was deleted): forget it and say so.
      if (!isNotFound(error)) throw error;
      this.#cache.delete(`${apiVersionOf(type)}/${type.kind}`);
      throw noMatch(type.kind, apiVersionOf(type));
    });
  }

  /** GET one object of a namespaced kind in one namespace; undefined when it does not exist. */
  getObject(
    type: ResourceType,
    namespace: string,
    name: string,
  ): Promise<ListedObject | undefined> {
    return this.cluster.get(type, { namespace: namespaced(type, namespace), name: segment(name) });
  }
}
