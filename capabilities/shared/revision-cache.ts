import { PackageRevision, PackageRevisionKind } from "../../crd-types";
import type { Cluster } from "../../lib/cluster/port";
import { Indexers, WatchCache } from "../../lib/controller/watch-cache";
import { findCondition } from "../../lib/kubernetes/conditions";
import { awaitsFunctionCatalog } from "../../lib/packages/content-readiness";
import { PACKAGE_VARIANT_LABEL, variantLabelValue } from "../../lib/package-variant";
import { statesInGit } from "../../lib/package-revision";

/** Marks the revisions a PackageVariant created or adopted, so they are found by label. */
export { PACKAGE_VARIANT_LABEL };

const packageKey = (namespace = "", repo = "", pkg = "") => `${namespace}/${repo}/${pkg}`;

const repositoryKey = (pr: PackageRevision) =>
  `${pr.metadata?.namespace ?? ""}/${pr.spec?.repository ?? ""}`;

/**
 * A revision whose source is still to run (a writer on its way to its repository), unless it
 * failed at this generation (then it waits for a change or a retry, and is not counted on).
 */
function awaitsSource(pr: PackageRevision): boolean {
  if (!pr.spec?.source || pr.status?.creationSource || pr.metadata?.deletionTimestamp) return false;
  const ready = findCondition(pr.status?.conditions, "Ready");
  return !(ready?.status === "False" && ready.observedGeneration === pr.metadata?.generation);
}

/**
 * A revision whose lifecycle move is still to run (a writer on its way to its repository):
 * spec.lifecycle is not what its status last said git holds, and nothing is stated at its
 * current generation yet. Once Ready is stated at this generation the move is done or failed
 * (an invalid move, readiness gates unmet, git refusing it, a server down: it waits for a
 * change or a retry), and is not counted: counted, it would hold every push of its repository
 * for the whole linger. A new draft's first write is its source's (awaitsSource).
 */
export function awaitsMove(pr: PackageRevision): boolean {
  const wanted = pr.spec?.lifecycle;
  if (!wanted || pr.metadata?.deletionTimestamp) return false;
  if (pr.spec?.source && !pr.status?.creationSource) return false;
  const ready = findCondition(pr.status?.conditions, "Ready");
  if (ready?.observedGeneration === pr.metadata?.generation) return false;
  return !statesInGit(ready, wanted);
}

/** Revisions of a repository whose source is still to write a draft. */
export const draftsAwaitingSource = (
  cache: WatchCache<PackageRevision>,
  namespace: string,
  repository: string,
): number => cache.count("awaitsSource", `${namespace}/${repository}`);

/** Revisions of a repository whose lifecycle move is still to run. */
export const movesAwaiting = (
  cache: WatchCache<PackageRevision>,
  namespace: string,
  repository: string,
): number => cache.count("awaitsMove", `${namespace}/${repository}`);

/**
 * How the PackageRevision cache is indexed (beside by name): by namespace, by package, by owning
 * PackageVariant, by repository for the revisions whose source is still to write a draft or
 * whose move is still to run, and whether its last render waits on the function catalog
 * ("true").
 */
export const revisionIndexers: Indexers<PackageRevision> = {
  namespace: pr => pr.metadata?.namespace ?? "",
  package: pr => packageKey(pr.metadata?.namespace, pr.spec?.repository, pr.spec?.packageName),
  owner: pr => {
    const owner = pr.metadata?.labels?.[PACKAGE_VARIANT_LABEL];
    return owner === undefined ? undefined : `${pr.metadata?.namespace ?? ""}/${owner}`;
  },
  awaitsSource: pr => (awaitsSource(pr) ? repositoryKey(pr) : undefined),
  awaitsMove: pr => (awaitsMove(pr) ? repositoryKey(pr) : undefined),
  awaitsCatalog: pr =>
    awaitsFunctionCatalog(findCondition(pr.status?.conditions, "Rendered")) ? "true" : undefined,
};

/**
 * The PackageRevisions the watch delivered, by package and by owning PackageVariant. The
 * PackageVariant and PackageVariantSet reconciles read it instead of listing (see WatchCache
 * for what a lagging read costs and why callers tolerate it).
 */
export class RevisionCache {
  constructor(
    private readonly cluster: Cluster,
    readonly cache: WatchCache<PackageRevision> = new WatchCache(revisionIndexers),
  ) {}

  #primed(namespace: string): Promise<void> {
    return this.cache.prime(namespace, () => this.cluster.list(PackageRevisionKind, { namespace }));
  }

  /** The revisions of one package. */
  /** How many PackageRevisions the namespace holds. */
  async countIn(namespace: string): Promise<number> {
    await this.#primed(namespace);
    return this.cache.count("namespace", namespace);
  }

  async ofPackage(namespace: string, repo = "", pkg = ""): Promise<PackageRevision[]> {
    await this.#primed(namespace);
    return this.cache.by("package", packageKey(namespace, repo, pkg));
  }

  /** The revisions labelled as created or adopted by the PackageVariant named `owner`. */
  async ownedBy(namespace: string, owner: string): Promise<PackageRevision[]> {
    await this.#primed(namespace);
    return this.cache.by("owner", `${namespace}/${variantLabelValue(owner)}`);
  }

  /** One revision by name, as the cache holds it (undefined when it does not). */
  named(namespace: string, name: string): PackageRevision | undefined {
    return this.cache.named({ namespace, name });
  }
}
