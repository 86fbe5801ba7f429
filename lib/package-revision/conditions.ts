// The PackageRevision's conditions and the field manager that owns each (docs/package-revisions.md,
// “Status field managers”). One table: a manager's apply states every condition it owns, so a
// condition it wrote is never left out of its next apply (server-side apply would delete it).
import type { ConditionInput } from "../kubernetes/conditions";
import type { UNCOMMITTABLE_REASONS } from "../packages/content-readiness";
export type { ConditionText } from "../packages/content-readiness";

/** The managers that write status conditions (the Kptfile manager writes packageConditions). */
export type ConditionManager = "core" | "render";

/** Which manager writes each condition type; no other manager may write it. */
export const CONDITION_OWNERS = {
  Ready: "core",
  Upgraded: "core",
  Rendered: "render",
} as const satisfies Record<string, ConditionManager>;

export type RevisionConditionType = keyof typeof CONDITION_OWNERS;

/** The condition types `M` owns. */
export type OwnedBy<M extends ConditionManager> = {
  [T in RevisionConditionType]: (typeof CONDITION_OWNERS)[T] extends M ? T : never;
}[RevisionConditionType];

/** A reason taken from a cause: a git error's code, a PermanentError's or a render's reason. */
export type CauseReason = string;

export type UncommittableReason = (typeof UNCOMMITTABLE_REASONS)[number];

/** The reasons of each condition type: literals where the controller chooses them. */
export interface ReasonOf {
  Ready:
    | "Ready"
    | "Pending"
    | "Failed"
    | "RepositoryReplaced"
    | "DeletionBlocked"
    | UncommittableReason
    | CauseReason;
  Upgraded: "Merged" | "MergedWithConflicts";
  Rendered: "Rendered" | "RenderFailed" | UncommittableReason | CauseReason;
}

export type RevisionCondition<T extends RevisionConditionType = RevisionConditionType> = {
  [K in T]: Omit<ConditionInput, "type" | "reason"> & { type: K; reason: ReasonOf[K] };
}[T];

/** The conditions a step's outcome states, each list under the manager that owns it. */
export type ManagedConditions = {
  [M in ConditionManager]?: RevisionCondition<OwnedBy<M>>[];
};

/** Every condition type `manager` owns: what its apply carries over from the current status. */
export function conditionTypesOf(manager: ConditionManager): RevisionConditionType[] {
  return (Object.keys(CONDITION_OWNERS) as RevisionConditionType[]).filter(
    type => CONDITION_OWNERS[type] === manager,
  );
}
