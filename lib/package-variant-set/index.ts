export { packageVariantIdentifier, packageVariantName } from "./naming";
export { unrollRepositoryList, unrollSelectedObjects } from "./unroll";
export type { SetTarget, TargetContext } from "./unroll";
export { renderPackageVariantSpec, TemplateError } from "./render";
export type { RenderInputs } from "./render";
export { desiredVariant, planSet } from "./plan";
export type { DesiredVariant, ExistingVariant, SetPlan } from "./plan";
export { SetIndex, kindKey } from "./set-index";
export { specDiff } from "./diff";
