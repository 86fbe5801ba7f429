// The deletion guard (docs/package-variant-sets.md, “Deletion guard”): a reconcile that would
// delete more of a set's PackageVariants than allowed deletes none until a user acknowledges it.
import { createHash } from "node:crypto";
import type { PackageVariantSet, PackageVariantSetStatus } from "../../crd-types";
import type { ExistingVariant } from "./plan";

export type DeletionGuardStatus = NonNullable<PackageVariantSetStatus["deletionGuard"]>;

/** Without spec.deletionGuard.maxDeletions: a quarter of the set's PackageVariants. */
export const DEFAULT_MAX_DELETIONS = "25%";

/** status.deletionGuard lists at most this many names; `count` has them all. */
export const LISTED_DELETIONS_LIMIT = 20;

const PERCENT = /^(\d{1,3})%$/;

/**
 * maxDeletions applied to a set of `total` PackageVariants: a number as is; a percentage of
 * the total rounded down, but at least 1 (so a small set can still lose one target). Admission
 * rejects other values; here they count as the default, never as "no limit".
 */
export function deletionLimit(maxDeletions: unknown, total: number): number {
  if (typeof maxDeletions === "number" && Number.isInteger(maxDeletions) && maxDeletions >= 0)
    return maxDeletions;
  const percent = PERCENT.exec(typeof maxDeletions === "string" ? maxDeletions : "");
  const share = percent && Number(percent[1]) <= 100 ? Number(percent[1]) : 25;
  return Math.max(1, Math.floor((total * share) / 100));
}

/**
 * Why the set would delete: its spec changed since the status was written, or, with the same
 * spec, what its selectors select changed (those are named).
 */
export function deletionReason(set: PackageVariantSet): string {
  const generation = set.metadata?.generation;
  const observed = set.status?.observedGeneration;
  if (observed !== undefined && observed !== generation)
    return `the set's spec changed (generation ${observed} to ${generation})`;
  const selectors = (set.spec?.targets ?? []).flatMap((t, i) =>
    t.repositorySelector
      ? [`spec.targets[${i}].repositorySelector`]
      : t.objectSelector
        ? [`spec.targets[${i}].objectSelector`]
        : [],
  );
  // At most a few selectors named: a set may have many targets, the status stays small.
  const named = selectors.slice(0, 5).join(", ") + (selectors.length > 5 ? ", …" : "");
  return selectors.length > 0
    ? `the spec is unchanged at generation ${generation}; the objects selected by ${named} changed`
    : `the spec is unchanged at generation ${generation}`;
}

function digestOf(names: string[]): string {
  return createHash("sha256")
    .update([...names].sort().join("\n"))
    .digest("hex");
}

export interface GuardDecision {
  /** False: the plan's deletions must all wait. */
  allowed: boolean;
  /** What the set's status says of the held deletions; undefined when none are held. */
  status?: DeletionGuardStatus;
}

/**
 * Deletions beyond the limit are all held. Variants already being deleted are neither counted
 * nor held (deleting them again changes nothing). A hold keeps the generation and reason it was
 * first seen with while the held names stay exactly the same (compared by digest); the user
 * releases it by writing that generation to spec.deletionGuard.acknowledgedGeneration.
 */
export function guardDeletions(
  set: PackageVariantSet,
  existing: ExistingVariant[],
  deletions: ExistingVariant[],
): GuardDecision {
  const names = deletions
    .filter(v => !v.metadata?.deletionTimestamp)
    .map(v => v.metadata?.name ?? "");
  const limit = deletionLimit(
    set.spec?.deletionGuard?.maxDeletions ?? DEFAULT_MAX_DELETIONS,
    existing.length,
  );
  if (names.length <= limit) return { allowed: true };
  const digest = digestOf(names);
  const previous = set.status?.deletionGuard;
  const same = previous?.digest === digest && previous.generation !== undefined;
  const generation = same ? previous.generation : set.metadata?.generation;
  if (generation !== undefined && set.spec?.deletionGuard?.acknowledgedGeneration === generation)
    return { allowed: true };
  return {
    allowed: false,
    status: {
      generation,
      count: names.length,
      of: existing.length,
      limit,
      packageVariants: [...names].sort().slice(0, LISTED_DELETIONS_LIMIT),
      reason: same && previous.reason ? previous.reason : deletionReason(set),
      digest,
    },
  };
}
