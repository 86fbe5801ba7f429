// How many PackageRevisions the mirror keeps in one namespace. Each Repository is held to
// PORCH_PEPR_REPOSITORY_MAX_REVISIONS, but a tenant registers as many Repositories as they like,
// and every revision is two objects in etcd and one in the watcher's caches for every tenant
// (README “Security model”). Objects a tenant creates directly are the cluster's ResourceQuota's
// to count (count/packagerevisions.porch.kpt.dev).
import { countSetting } from "../count-setting";

export const NAMESPACE_MAX_REVISIONS_VARIABLE = "PORCH_PEPR_NAMESPACE_MAX_REVISIONS";
/** Three Repositories at their cap; a fleet of 10,000 variants with a draft and two revisions each. */
export const DEFAULT_NAMESPACE_MAX_REVISIONS = 30_000;

export function namespaceMaxRevisions(env: Record<string, string | undefined>): number {
  return countSetting(
    env,
    NAMESPACE_MAX_REVISIONS_VARIABLE,
    DEFAULT_NAMESPACE_MAX_REVISIONS,
    10_000_000,
  ).value;
}

/**
 * Why a Repository listing `listed` revisions is not mirrored while its namespace holds `others`
 * revisions of other Repositories (or made directly), or undefined when it may be.
 */
export function namespaceRevisionsProblem(
  listed: number,
  others: number,
  max: number,
): string | undefined {
  if (listed + others <= max) return undefined;
  return `the repository has ${listed} package revisions and the namespace ${others} more, over the limit of ${max} package revisions per namespace (${NAMESPACE_MAX_REVISIONS_VARIABLE}); nothing is mirrored from it until there are fewer, and revisions already mirrored are kept`;
}
