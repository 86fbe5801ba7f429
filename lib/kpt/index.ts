// Public API of the in-memory kpt package operations (kpt pkg get / pkg update, Porch clone
// and upgrade tasks). Everything else in lib/kpt is internal.
export {
  clonePackage,
  generatePackageContext,
  PACKAGE_CONTEXT_FILE,
  PACKAGE_CONTEXT_NAME,
} from "./clone";
export type { CloneOptions, PackageContext } from "./clone";
export { isUpdateStrategy, upgradePackage } from "./upgrade";
export { UPDATE_STRATEGIES, UpgradeError } from "./types";
export type {
  ConflictReason,
  GitLock,
  MergeConflict,
  PackageFiles,
  ResourceRef,
  UpdateStrategy,
  UpgradeErrorReason,
  UpgradeInput,
  UpgradeResult,
} from "./types";
export { initPackage } from "./init";
export type { InitOptions } from "./init";
