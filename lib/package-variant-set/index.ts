export { packageVariantIdentifier, packageVariantName } from "./naming";
export { packageNamesOf, unrollRepositoryList, unrollSelectedObjects } from "./unroll";
export type { SetTarget, TargetContext } from "./unroll";
export { MissingRepositoryError, renderPackageVariantSpec, TemplateError } from "./render";
export type { RenderInputs } from "./render";
export { desiredVariant, nameTakenMessage, planSet } from "./plan";
export type { DesiredVariant, ExistingVariant, SetPlan } from "./plan";
export { SetIndex, kindKey } from "./set-index";
export { specDiff } from "./diff";
export {
  buildStatus,
  emptyOutcome,
  LISTED_TARGETS_LIMIT,
  newlyEmptyTargets,
  stall,
  targetOf,
} from "./status";
export type { SetOutcome, StatusTarget } from "./status";
export {
  MAX_VARIANT_EVENT_DELAY_MS,
  MIN_VARIANT_EVENT_DELAY_MS,
  variantEventDelayMs,
} from "./event-delay";
export {
  decidePlan,
  failedPreview,
  plannedTargets,
  previewUpgrade,
  upgradesToPreview,
} from "./plan-preview";
export type { PlanDecision, PlannedTarget, PlanStatus, UpgradePreview } from "./plan-preview";
export { planSpecProblems } from "./plan-rules";
export { assignWave, decideRollout, failedTargetWave, REST_WAVE } from "./rollout";
export type { RenderFailure, RolloutSpec, RolloutStatus, VariantProgress } from "./rollout";
export { deletionLimit, guardDeletions } from "./deletion-guard";
export {
  listedTargetCount,
  listedTargetProblems,
  repositoryListCount,
  setTargetLimitFromEnv,
  SET_MAX_TARGETS_VARIABLE,
  tooManyTargetsProblem,
} from "./target-limit";
export type { SetTargetLimit } from "./target-limit";
