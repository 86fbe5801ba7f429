// Changes to existing PackageRevision objects (adoption, restore, delete-or-orphan), as plain
// data the caller turns into a DELETE or one merge patch per object.
import type { PackageRevision } from "../../crd-types";
import type { OwnerReference } from "./ownership";

/**
 * Why a revision changes: `adopt` (adoptExisting), `restore` (DeletionProposed downstream back
 * to Published), `stale` (owned, but no longer spec.downstream's repository/package),
 * `deleted` (the PackageVariant is being deleted).
 */
export type ChangeReason = "adopt" | "restore" | "stale" | "deleted";

/** New values; every field present replaces the object's (lists and maps whole). */
export interface RevisionPatch {
  lifecycle?: "Published" | "DeletionProposed";
  ownerReferences?: OwnerReference[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export type RevisionChange =
  | { action: "delete"; name: string; revision: PackageRevision; reasons: ChangeReason[] }
  | {
      action: "update";
      name: string;
      revision: PackageRevision;
      reasons: ChangeReason[];
      set: RevisionPatch;
    };

export function updateChange(
  revision: PackageRevision,
  reason: ChangeReason,
  set: RevisionPatch,
): RevisionChange {
  return {
    action: "update",
    name: revision.metadata?.name ?? "",
    revision,
    reasons: [reason],
    set,
  };
}

export function deleteChange(revision: PackageRevision, reason: ChangeReason): RevisionChange {
  return { action: "delete", name: revision.metadata?.name ?? "", revision, reasons: [reason] };
}

/**
 * Folds several changes of one object into one (a delete wins), keeping first-seen order, so
 * the caller sends one request per object.
 */
export function combineChanges(changes: readonly RevisionChange[]): RevisionChange[] {
  const byName = new Map<string, RevisionChange>();
  for (const change of changes) {
    const seen = byName.get(change.name);
    if (!seen) byName.set(change.name, change);
    else if (seen.action === "delete" || change.action === "delete") {
      byName.set(change.name, {
        ...deleteChange(seen.revision, seen.reasons[0]),
        reasons: [...seen.reasons, ...change.reasons],
      });
    } else {
      byName.set(change.name, {
        ...seen,
        reasons: [...seen.reasons, ...change.reasons],
        set: { ...seen.set, ...change.set },
      });
    }
  }
  return [...byName.values()];
}

/** The JSON merge patch (RFC 7386) body of an update. */
export function mergePatchOf(set: RevisionPatch): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (set.ownerReferences) metadata.ownerReferences = set.ownerReferences;
  if (set.labels) metadata.labels = set.labels;
  if (set.annotations) metadata.annotations = set.annotations;
  return {
    ...(Object.keys(metadata).length > 0 && { metadata }),
    ...(set.lifecycle && { spec: { lifecycle: set.lifecycle } }),
  };
}

/** The object with the change applied (for a full Update instead of a patch). */
export function applyRevisionPatch(pr: PackageRevision, set: RevisionPatch): PackageRevision {
  return {
    ...pr,
    metadata: {
      ...pr.metadata,
      ...(set.ownerReferences && { ownerReferences: set.ownerReferences }),
      ...(set.labels && { labels: set.labels }),
      ...(set.annotations && { annotations: set.annotations }),
    },
    spec: { ...pr.spec, ...(set.lifecycle && { lifecycle: set.lifecycle }) },
  };
}
