// Delete-or-orphan of owned PackageRevisions (docs/package-variants.md, “Deletion”): when the
// PackageVariant is deleted, and for owned revisions that no longer match spec.downstream.
import type { PackageRevision, PackageVariant } from "../../crd-types";
import {
  combineChanges,
  deleteChange,
  updateChange,
  type ChangeReason,
  type RevisionChange,
} from "./changes";
import { isOwnedBy, withoutOwner } from "./ownership";

/**
 * What deletionPolicy does to one owned revision:
 * - `orphan`: remove this PackageVariant's owner reference, whatever the lifecycle;
 * - `delete` (default): Draft/Proposed are deleted (unless already being deleted), Published
 *   becomes DeletionProposed (a person approves the deletion), DeletionProposed is left as is.
 * With `orphanProposals` (the PackageVariant itself is going away) a revision that is or becomes
 * DeletionProposed is also orphaned: otherwise garbage collection would delete it together with
 * its owner before anyone approves.
 */
export function retireRevision(
  pr: PackageRevision,
  pv: PackageVariant,
  reason: ChangeReason,
  orphanProposals: boolean,
): RevisionChange | undefined {
  const uid = pv.metadata?.uid;
  const orphan = { ownerReferences: withoutOwner(pr, uid) };
  if (pv.spec?.deletionPolicy === "orphan") return updateChange(pr, reason, orphan);
  switch (pr.spec?.lifecycle) {
    case undefined:
    case "Draft":
    case "Proposed":
      return pr.metadata?.deletionTimestamp ? undefined : deleteChange(pr, reason);
    case "Published":
      return updateChange(pr, reason, {
        lifecycle: "DeletionProposed",
        ...(orphanProposals && orphan),
      });
    case "DeletionProposed":
      return orphanProposals ? updateChange(pr, reason, orphan) : undefined;
    default:
      return undefined;
  }
}

/** Every change to make before the PackageVariant's finalizer is removed. */
export function planDeletion(
  pv: PackageVariant,
  revisions: readonly PackageRevision[],
): RevisionChange[] {
  const changes = revisions
    .filter(pr => isOwnedBy(pr, pv.metadata?.uid))
    .map(pr => retireRevision(pr, pv, "deleted", true))
    .filter((change): change is RevisionChange => change !== undefined);
  return combineChanges(changes);
}
