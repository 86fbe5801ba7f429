// The PackageRevision's conditions and the field manager that owns each (docs/package-revisions.md,
// “Status field managers”). One table: a manager's apply states every condition it owns, so a
// condition it wrote is never left out of its next apply (server-side apply would delete it).
import type { Condition, ConditionInput } from "../kubernetes/conditions";
import type { ApprovalPolicyReason } from "../packages/approval-policy";

/**
 * The parts of the status that hold conditions. The core and render parts are applied together,
 * under the core field manager (the render part also states the Kptfile's conditions as
 * packageConditions, a field of their own: see RenderFields).
 */
export type ConditionManager = "core" | "render" | "approval";

/** Which manager writes each condition type; no other manager may write it. */
export const CONDITION_OWNERS = {
  Ready: "core",
  Upgraded: "core",
  Rendered: "render",
  ApprovalPolicy: "approval",
} as const satisfies Record<string, ConditionManager>;

export type RevisionConditionType = keyof typeof CONDITION_OWNERS;

/** The condition types `M` owns. */
export type OwnedBy<M extends ConditionManager> = {
  [T in RevisionConditionType]: (typeof CONDITION_OWNERS)[T] extends M ? T : never;
}[RevisionConditionType];

/** A reason taken from a cause: a git error's code, a PermanentError's or a render's reason. */
export type CauseReason = string;

/**
 * Rendered reasons for files git could not take at all (not a failed function, whose last good
 * content stays committed): the revision is not Ready until its files change.
 */
export const UNCOMMITTABLE_REASONS = [
  "UnsafeFileNames",
  "InvalidContent",
  "ContentTooLarge",
] as const;

export type UncommittableReason = (typeof UNCOMMITTABLE_REASONS)[number];

/** A condition as compared: what it says, not when it was last written. */
export type ConditionText = Pick<Condition, "status" | "reason" | "message">;

/**
 * The reasons of each condition type: literals where the controller chooses them. Ready and
 * Rendered also pass on a cause's reason, so their unions name the chosen ones without closing
 * the set; Upgraded's are closed.
 */
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
  ApprovalPolicy: ApprovalPolicyReason;
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

/**
 * The Ready condition a Draft or Proposed revision gets while its latest files could not be
 * committed (Rendered=False for one of UNCOMMITTABLE_REASONS), or undefined when nothing blocks.
 */
export function blockedReady(
  lifecycle: string | undefined,
  rendered: ConditionText | undefined,
): RevisionCondition<"Ready"> | undefined {
  if (lifecycle !== "Draft" && lifecycle !== "Proposed") return undefined;
  if (rendered?.status !== "False") return undefined;
  if (!(UNCOMMITTABLE_REASONS as readonly string[]).includes(rendered.reason)) return undefined;
  return { type: "Ready", status: "False", reason: rendered.reason, message: rendered.message };
}

/**
 * The Ready condition of a revision git holds at `lifecycle`: blocked while its files could not
 * be committed (see blockedReady), True otherwise. The source step, which leaves a new draft
 * rendered, and the lifecycle step, which moves it, state it alike.
 */
export function readyInGit(
  lifecycle: string,
  rendered: ConditionText | undefined,
): RevisionCondition<"Ready"> {
  return (
    blockedReady(lifecycle, rendered) ?? {
      type: "Ready",
      status: "True",
      reason: "Ready",
      message: `${lifecycle} in git`,
    }
  );
}

/** Whether `ready` says git holds the revision at `lifecycle` (as readyInGit words it). */
export function statesInGit(ready: ConditionText | undefined, lifecycle: string): boolean {
  const inGit = readyInGit(lifecycle, undefined);
  return (
    ready?.status === inGit.status &&
    ready.reason === inGit.reason &&
    ready.message === inGit.message
  );
}
