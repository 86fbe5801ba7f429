// `copy-merge` (kpt main / Porch): every upstream file overwrites the local one, local-only
// files are kept, files deleted upstream are removed; the root Kptfile is 3-way merged.
// Local edits lost by overwriting or removal are reported.
import { KPTFILE } from "../kptfile";
import type { MergeConflict, UpgradeInput, UpgradeResult } from "../types";
import { discardedLocalChanges, mergedKptfileText } from "./common";

export function copyMerge(input: UpgradeInput): UpgradeResult {
  const conflicts: MergeConflict[] = [];
  const files: Record<string, string> = { ...input.local };
  for (const path of Object.keys(input.original)) {
    if (path !== KPTFILE && !(path in input.updated)) delete files[path];
  }
  for (const [path, content] of Object.entries(input.updated)) {
    if (path !== KPTFILE) files[path] = content;
  }
  files[KPTFILE] = mergedKptfileText("", input, conflicts);
  // Local-only files are kept, so only files upstream had or has can have lost local edits.
  const upstreamFile = (path: string) => path in input.original || path in input.updated;
  conflicts.push(...discardedLocalChanges(input, upstreamFile));
  return { files, conflicts };
}
