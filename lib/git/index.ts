// Framework-free git content store (docs/package-revisions.md, “CRD as intent, git as content”
// and “Content store”).
export * from "./types";
export {
  GitStoreError,
  PushRejectedError,
  isGitStoreError,
  failureReason,
  isTransientGitError,
  isRefusedContent,
  scrubSecrets,
  type GitErrorCode,
} from "./errors";
export { GitContentStore, openContentStore } from "./store";
export { defaultClientKind, hasGitBinary } from "./client";
export {
  draftBranch,
  proposedBranch,
  tagRef,
  deletionProposedBranch,
  packagePath,
  revisionFromTag,
  shortRef,
  lockOf,
  validatePackageName,
  validateWorkspaceName,
} from "./layout";
export { readKptfile } from "../kpt/kptfile-read";
