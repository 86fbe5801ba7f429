import type { PackageRevision } from "../../crd-types";
import { parseRevision } from "../validation/revision";

/** What selects an upstream revision: PackageVariant and PackageVariantSet share the shape. */
export interface UpstreamSelector {
  repo?: string;
  package?: string;
  revision?: number | string;
  workspaceName?: string;
}

const isDeleting = (pr: PackageRevision) => Boolean(pr.metadata?.deletionTimestamp);
/**
 * Only a Published revision is picked as an upstream: unlike isPublished (lib/git/types), a
 * DeletionProposed one is on its way out and is not offered for new variants.
 */
const isPublishedNotDeletionProposed = (pr: PackageRevision) => pr.spec?.lifecycle === "Published";

/**
 * Picks the upstream PackageRevision among the revisions of the upstream package: by workspace
 * name; by published revision number (`2` or `v2`, which the reference ignores: porch#226); or
 * the newest published revision for `latest`.
 */
export function selectUpstream(
  revisions: PackageRevision[],
  selector: UpstreamSelector,
): PackageRevision | undefined {
  const candidates = revisions.filter(
    pr =>
      pr.spec?.repository === selector.repo &&
      pr.spec?.packageName === selector.package &&
      !isDeleting(pr),
  );
  if (selector.workspaceName)
    return candidates.find(pr => pr.spec?.workspaceName === selector.workspaceName);
  const wanted = parseRevision(selector.revision);
  if (wanted.kind === "number") {
    return candidates.find(
      pr => isPublishedNotDeletionProposed(pr) && pr.status?.revision === wanted.revision,
    );
  }
  if (wanted.kind === "latest") {
    return candidates
      .filter(isPublishedNotDeletionProposed)
      .reduce<
        PackageRevision | undefined
      >((best, pr) => ((pr.status?.revision ?? 0) > (best?.status?.revision ?? 0) ? pr : best), undefined);
  }
  return undefined;
}

/** How the reference says an upstream is missing, with the revision as the spec gives it. */
export function upstreamNotFoundMessage(selector: UpstreamSelector): string {
  const which = selector.workspaceName
    ? `workspace ${selector.workspaceName}`
    : String(selector.revision ?? "");
  return `could not find upstream package revision '${selector.package}/${which}' in repo '${selector.repo}'`;
}
