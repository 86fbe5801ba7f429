// `force-delete-replace`: the local package content is replaced by the new upstream, local-only
// files and subpackages included; only the root Kptfile is 3-way merged (kpt main; kpt
// 1.0.0-beta.56 kept the local pipeline/info instead). Every lost local change is reported.
import { KPTFILE } from "../kptfile";
import type { MergeConflict, UpgradeInput, UpgradeResult } from "../types";
import { discardedLocalChanges, mergedKptfileText } from "./common";

export function forceDeleteReplace(input: UpgradeInput): UpgradeResult {
  const conflicts: MergeConflict[] = [];
  const files: Record<string, string> = {
    ...input.updated,
    [KPTFILE]: mergedKptfileText("", input, conflicts),
  };
  conflicts.push(...discardedLocalChanges(input));
  return { files, conflicts };
}
