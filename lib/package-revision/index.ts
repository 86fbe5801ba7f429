// Public API of the framework-free PackageRevision logic (docs/package-revisions.md): the
// lifecycle and its moves, the conditions each field manager owns, and the outcomes of the
// controller's steps. The capability reads and writes; everything here is pure.
export { isPublished, LIFECYCLES, type Lifecycle } from "../git/types";
export {
  APPROVAL_MOVES,
  copySourceProblem,
  isApprovalMove,
  isFurtherAlong,
  LIFECYCLE_TRANSITIONS,
  transitionProblem,
  unmetReadinessGates,
  type ReadinessInput,
} from "./lifecycle";
export {
  blockedReady,
  CONDITION_OWNERS,
  conditionTypesOf,
  readyInGit,
  UNCOMMITTABLE_REASONS,
  statesInGit,
  type ConditionManager,
  type ConditionText,
  type ManagedConditions,
  type OwnedBy,
  type RevisionCondition,
  type RevisionConditionType,
} from "./conditions";
export { FIELD_MANAGERS } from "./field-managers";
export {
  alreadyStated,
  failureOutcome,
  revisionConditions,
  revisionFields,
  type CoreFields,
  type ManagedFields,
  type PackageConditions,
  type RenderFields,
  type RenderVerdict,
  type RevisionOutcome,
} from "./outcome";
