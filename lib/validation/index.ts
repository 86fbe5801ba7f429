export { validatePackageVariant } from "./package-variant";
export { validatePackageVariantSet } from "./package-variant-set";
export { parseRevision, formatRevision } from "./revision";
export type { RevisionSelector } from "./revision";
export { RESERVED_CONTEXT_KEYS } from "./common";
export { isDns1123Label, pathSegmentNameProblem } from "./kubernetes-names";
export {
  initSubpackageProblem,
  validatePackageRevision,
  validatePackageRevisionResources,
} from "./package-revision";
export type { AdmissionContext } from "./package-revision";
export { approvalProblem, isOperatorRequest, secretUses, secretUseProblem } from "./requester";
export type { RequestUser, SecretUse } from "./requester";
export { packageFilesProblems } from "./package-files";
export { validateRepository, cloneSourceUrlProblems } from "./git-url";
export {
  DEFAULT_READABLE_KINDS,
  formatKind,
  kindOf,
  packageVariantKindProblems,
  packageVariantSetKindProblems,
  parseReadableKinds,
  READABLE_KINDS_VARIABLE,
  readableKindProblem,
} from "./readable-kinds";
export type { ReadableKind, ReadableKindPolicy } from "./readable-kinds";
export { repositoryUidProblem, workspaceTakenProblem } from "./revision-identity";
export type { RevisionIdentity } from "./revision-identity";
export { packageVariantReads, packageVariantSetReads, readUseProblem } from "./reads";
export type { ReadUse } from "./reads";
