// Shared types of the in-memory kpt package operations (clone / upgrade).

/** A package: file path (relative, "/"-separated, e.g. "Kptfile", "sub/deploy.yaml") → content. */
export type PackageFiles = Readonly<Record<string, string>>;

/** kpt / Porch update strategies. */
export const UPDATE_STRATEGIES = [
  "resource-merge",
  "fast-forward",
  "force-delete-replace",
  "copy-merge",
] as const;
export type UpdateStrategy = (typeof UPDATE_STRATEGIES)[number];

/** Where a package revision comes from, as recorded in the Kptfile `upstreamLock.git`. */
export interface GitLock {
  repo: string;
  directory: string;
  ref: string;
  commit: string;
}

/** A Kptfile's `upstreamLock`: where the package was last taken from. */
export interface UpstreamLock {
  type: string;
  git?: GitLock;
}

export interface ResourceRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * Why an upgrade could not keep both sides:
 * - BothModified: a field changed differently locally and upstream.
 * - AtomicListReplaced: a list without merge keys changed on both sides; upstream's list won.
 * - DeletedUpstreamModifiedLocally: upstream deleted it, local changed it. Objects and files
 *   are kept (resolution "local"); list items are deleted as in kpt, keeping only fields that
 *   were added locally (resolution "upstream").
 * - DeletedLocallyModifiedUpstream: local deleted it, upstream changed it. Objects, files and
 *   subpackages stay deleted ("local"); list items get upstream's changed fields back ("upstream").
 * - NonKrmFileBothModified: a non-KRM file changed on both sides; local kept, upstream change lost.
 * - LocalChangesDiscarded: a replacing strategy overwrote or removed a locally changed file.
 */
export type ConflictReason =
  | "BothModified"
  | "AtomicListReplaced"
  | "DeletedUpstreamModifiedLocally"
  | "DeletedLocallyModifiedUpstream"
  | "NonKrmFileBothModified"
  | "LocalChangesDiscarded";

export interface MergeConflict {
  reason: ConflictReason;
  /** Package-relative file the conflict is in. */
  file: string;
  /** The KRM object, when the conflict is inside one. */
  resource?: ResourceRef;
  /** Field path, e.g. `spec.template.spec.containers[name=app].image`; absent for whole objects/files. */
  field?: string;
  /** Plain JSON values; undefined means absent. */
  localValue?: unknown;
  upstreamValue?: unknown;
  /** Which side's version is in the result. */
  resolution: "local" | "upstream";
  /** One-line human-readable summary for a status condition. */
  message: string;
}

export interface UpgradeInput {
  /** The upstream revision the local package was cloned/upgraded from. */
  original: PackageFiles;
  /** The upstream revision to move to. */
  updated: PackageFiles;
  /** The local (downstream) package. */
  local: PackageFiles;
}

export interface UpgradeResult {
  files: Record<string, string>;
  conflicts: MergeConflict[];
}

export type UpgradeErrorReason =
  | "LocalModifications"
  | "SubpackageAddedOnBothSides"
  | "InvalidStrategy"
  | "InvalidPackage";

/** An upgrade that produced no output; `files` lists the offending paths. */
export class UpgradeError extends Error {
  constructor(
    message: string,
    readonly reason: UpgradeErrorReason,
    readonly files: readonly string[] = [],
  ) {
    super(message);
    this.name = "UpgradeError";
  }
}
