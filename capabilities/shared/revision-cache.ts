import { PackageRevision, PackageRevisionKind } from "../../crd-types";
import { WatchCache } from "../../lib/controller/watch-cache";
import { PACKAGE_VARIANT_LABEL, variantLabelValue } from "../../lib/package-variant";
import { cluster } from "./cluster";

/** Marks the revisions a PackageVariant created or adopted, so they are found by label. */
export { PACKAGE_VARIANT_LABEL };

const packageKey = (namespace = "", repo = "", pkg = "") => `${namespace}/${repo}/${pkg}`;

/**
 * The PackageRevisions the watches of the PackageVariant and PackageVariantSet capabilities
 * delivered (both feed it; a copy delivered twice is harmless), by package and by owning
 * PackageVariant. Their reconciles read it instead of listing (see WatchCache for what a
 * lagging read costs and why callers tolerate it).
 */
export const revisionCache = new WatchCache<PackageRevision>({
  name: pr => `${pr.metadata?.namespace ?? ""}/${pr.metadata?.name ?? ""}`,
  package: pr => packageKey(pr.metadata?.namespace, pr.spec?.repository, pr.spec?.packageName),
  owner: pr => {
    const owner = pr.metadata?.labels?.[PACKAGE_VARIANT_LABEL];
    return owner === undefined ? undefined : `${pr.metadata?.namespace ?? ""}/${owner}`;
  },
});

const primed = (namespace: string) =>
  revisionCache.prime(namespace, () => cluster.list(PackageRevisionKind, { namespace }));

/** The revisions of one package. */
export async function cachedPackageRevisions(
  namespace: string,
  repo = "",
  pkg = "",
): Promise<PackageRevision[]> {
  await primed(namespace);
  return revisionCache.by("package", packageKey(namespace, repo, pkg));
}

/** The revisions labelled as created or adopted by the PackageVariant named `owner`. */
export async function cachedOwnedRevisions(
  namespace: string,
  owner: string,
): Promise<PackageRevision[]> {
  await primed(namespace);
  return revisionCache.by("owner", `${namespace}/${variantLabelValue(owner)}`);
}

/** One revision by name, as the cache holds it (undefined when it does not). */
export function cachedRevision(namespace: string, name: string): PackageRevision | undefined {
  return revisionCache.by("name", `${namespace}/${name}`)[0];
}
