// Which PackageRevisions are this PackageVariant's downstream (docs/package-variants.md, “State
// machine” and “Adoption”), with the adoption and stale-cleanup changes on the way.
import { withoutGrant } from "../packages/approval-policy";
import type { PackageRevision, PackageVariant } from "../../crd-types";
import { isPublished } from "../git/types";
import { updateChange, type RevisionChange } from "./changes";
import { retireRevision } from "./deletion";
import {
  isOwnedBy,
  otherController,
  ownerReferencesOf,
  packageVariantOwnerReference,
} from "./ownership";

export interface Discovery {
  /** Adoptions and stale delete-or-orphans, one per object. */
  changes: RevisionChange[];
  /** Why a matching revision was left alone (already controlled by another object). */
  notes: string[];
  /** Every owned Draft/Proposed; if there is none, the owned published one with the highest revision. */
  downstreams: PackageRevision[];
}

function withMerged(
  current: Record<string, string> | undefined,
  added: Record<string, string> | undefined,
): Record<string, string> | undefined {
  return added && Object.keys(added).length > 0 ? { ...current, ...added } : undefined;
}

function adoption(pr: PackageRevision, pv: PackageVariant): RevisionChange {
  const labels = withMerged(pr.metadata?.labels, pv.spec?.labels);
  const merged = withMerged(pr.metadata?.annotations, pv.spec?.annotations);
  // An adopted revision's files were written by whoever made it, not checked under the
  // variant's approval policy: it gets the policy but no grant (docs/package-variants.md).
  const annotations = merged && withoutGrant(merged);
  return updateChange(pr, "adopt", {
    ownerReferences: [...ownerReferencesOf(pr), packageVariantOwnerReference(pv)],
    ...(labels && { labels }),
    ...(annotations && { annotations }),
  });
}

/** spec.lifecycle says Published, git has not numbered it yet (status.revision 0 or unset). */
export function publishing(pr: PackageRevision): boolean {
  return isPublished(pr.spec?.lifecycle) && (pr.status?.revision ?? 0) === 0;
}

function latestPublished(revisions: PackageRevision[]): PackageRevision | undefined {
  let latest: PackageRevision | undefined;
  for (const pr of revisions) {
    if (!latest || (pr.status?.revision ?? 0) > (latest.status?.revision ?? 0)) latest = pr;
  }
  return latest;
}

/**
 * Revisions being deleted are ignored (they are on their way out; their workspace names still
 * count, see newWorkspaceName). Unowned revisions matter only under adoptExisting, and only
 * when they match spec.downstream; a revision another object already controls is not adopted
 * (Kubernetes allows one controller reference) and is reported in notes.
 */
export function discoverDownstreams(
  pv: PackageVariant,
  revisions: readonly PackageRevision[],
): Discovery {
  const uid = pv.metadata?.uid;
  const adopting = pv.spec?.adoptionPolicy === "adoptExisting";
  const { repo, package: pkg } = pv.spec?.downstream ?? {};
  const result: Discovery = { changes: [], notes: [], downstreams: [] };
  const published: PackageRevision[] = [];
  for (const pr of revisions) {
    if (pr.metadata?.deletionTimestamp) continue;
    const owned = isOwnedBy(pr, uid);
    if (!owned && !adopting) continue;
    if (pr.spec?.repository !== repo || pr.spec?.packageName !== pkg) {
      const retire = owned ? retireRevision(pr, pv, "stale", false) : undefined;
      if (retire) result.changes.push(retire);
      continue;
    }
    if (!owned) {
      const other = otherController(pr, uid);
      if (other) {
        result.notes.push(
          `not adopting PackageRevision "${pr.metadata?.name}": it is controlled by ${other.kind} "${other.name}"`,
        );
        continue;
      }
      result.changes.push(adoption(pr, pv));
    }
    // Asked to be published but not yet numbered: still a proposal in git, so not (yet) the
    // published downstream an upgrade or edit would start from.
    if (isPublished(pr.spec?.lifecycle) && !publishing(pr)) published.push(pr);
    else result.downstreams.push(pr);
  }
  if (result.downstreams.length === 0) {
    const latest = latestPublished(published);
    if (latest) result.downstreams.push(latest);
  }
  return result;
}
