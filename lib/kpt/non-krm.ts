// Files kpt cannot merge field by field (README, scripts, invalid YAML), handled per file as
// kpt's ReplaceNonKRMFiles does: local additions and local edits are kept, untouched files
// follow upstream (including deletion), and a file deleted locally comes back if upstream
// still has it.
import { conflict } from "./conflicts";
import type { MergeConflict } from "./types";

type FileSet = Readonly<Record<string, string>>;

export function mergeNonKrmFiles(
  original: FileSet,
  updated: FileSet,
  local: FileSet,
  conflicts: MergeConflict[],
): Record<string, string> {
  const out: Record<string, string> = {};
  const paths = new Set([...Object.keys(original), ...Object.keys(updated), ...Object.keys(local)]);
  for (const path of [...paths].sort()) {
    const [o, u, d] = [original[path], updated[path], local[path]];
    if (d === undefined) {
      if (u !== undefined) out[path] = u;
      continue;
    }
    const locallyChanged = o === undefined || d !== o;
    if (!locallyChanged) {
      if (u !== undefined) out[path] = u;
      continue;
    }
    out[path] = d;
    if (u === undefined && o !== undefined) {
      conflicts.push(conflict("DeletedUpstreamModifiedLocally", path, "local"));
    } else if (u !== undefined && u !== o && u !== d) {
      conflicts.push(conflict("NonKrmFileBothModified", path, "local"));
    }
  }
  return out;
}
