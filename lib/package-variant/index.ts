// Public API of the framework-free PackageVariant logic (docs/package-variants.md). The capability
// fetches and writes; everything here is pure.
export { MutationError } from "./errors";
export { MutationChecks, NOTHING_INJECTED, type InjectionReads } from "./mutation-checks";
export { applyPackageContext } from "./package-context";
export {
  applyPipeline,
  FUNCTION_NAME_PREFIX,
  isPackageVariantFunction,
  packageVariantFunctionName,
} from "./pipeline";
export {
  CONFIG_INJECTION_ANNOTATION,
  INJECTED_RESOURCE_ANNOTATION,
  injectedResourceName,
  LEGACY_INJECTED_RESOURCE_ANNOTATION,
  inClusterKey,
  injectionCandidates,
  injectionConditionType,
  injectorApplies,
  planInjection,
} from "./injection-points";
export type { InClusterRef, InjectionPlan, InjectionPoint, Injector } from "./injection-points";
export { injectConfig, NO_RESOURCE_MESSAGE } from "./injection";
export { fetchInjected } from "./injection-fetch";
export type { FetchedObjects, FetchOutcome } from "./injection";
export type { KptfileCondition } from "./kptfile-conditions";
export { applyMutations, comparePackages, objectsToFetch } from "./mutations";
export {
  mutatesAtSource,
  SOURCE_MUTATIONS_ANNOTATION,
  sourceMutationsMark,
  sourceMutationsOwner,
} from "./source-mutations";
export type { DownstreamRepository, MutationResult } from "./mutations";
export { newWorkspaceName, packageRevisionObjectName, WORKSPACE_PREFIX } from "./workspace";
export { findOldUpstream, isUpToDate, lockedUpstream, publishedRevision } from "./up-to-date";
export type { LockedUpstream, OldUpstream } from "./up-to-date";
export {
  isOwnedBy,
  otherController,
  PACKAGE_VARIANT_FINALIZER,
  PACKAGE_VARIANT_API_VERSION,
  PACKAGE_VARIANT_KIND,
  packageVariantOwnerReference,
  withoutOwner,
} from "./ownership";
export type { OwnerReference } from "./ownership";
export {
  buildCloneDraft,
  buildEditDraft,
  buildUpgradeDraft,
  PACKAGE_REVISION_API_VERSION,
  PACKAGE_REVISION_KIND,
} from "./builders";
export { applyRevisionPatch, mergePatchOf } from "./changes";
export type { ChangeReason, RevisionChange, RevisionPatch } from "./changes";
export { discoverDownstreams } from "./downstreams";
export type { Discovery } from "./downstreams";
export { planDeletion, retireRevision } from "./deletion";
export {
  decideMutations,
  notPublishedMessage,
  planPackageVariant,
  sourcePendingMessage,
} from "./state";
export type {
  CheckMutationsStep,
  DownstreamStep,
  MutationDecision,
  PlanInput,
  VariantPlan,
} from "./state";
export { VariantIndex } from "./variant-index";
export { revisionRelevance } from "./watch-relevance";
export { statusWaits, renderVerdict, stepVerdict, variantConditions } from "./readiness";
export type { VariantOutcome } from "./readiness";
export {
  PACKAGE_VARIANT_LABEL,
  PACKAGE_VARIANT_NAME_ANNOTATION,
  variantLabelValue,
  variantMarks,
} from "./variant-label";
export { boundedDownstreamTargets, TARGET_RENDER_STATUS_BOUNDS } from "./target-render-status";
