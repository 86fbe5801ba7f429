// kpt's default `resource-merge` strategy: every (sub)package is handled on its own —
// added/deleted subpackages by kpt's rules, otherwise Kptfile 3-way merge, resource-level
// 3-way merge of KRM files and file-level handling of everything else.
import { isKrmPath, parseKrmFile, type YamlFile } from "../../krm/documents";
import { conflict } from "../conflicts";
import { mergeKrmFiles } from "../krm-merge";
import { mergeNonKrmFiles } from "../non-krm";
import { filesOfPackage, hasPackage, kptfilePath, packageDirs } from "../package-layout";
import {
  type MergeConflict,
  type PackageFiles,
  UpgradeError,
  type UpgradeInput,
  type UpgradeResult,
} from "../types";
import { mergedKptfileText, samePackage } from "./common";

export function resourceMerge(input: UpgradeInput): UpgradeResult {
  const conflicts: MergeConflict[] = [];
  const files: Record<string, string> = {};
  for (const dir of packageDirs(input.original, input.updated, input.local)) {
    Object.assign(
      files,
      dir ? updateSubpackage(dir, input, conflicts) : mergePackage(dir, input, conflicts),
    );
  }
  return { files, conflicts };
}

function own(files: PackageFiles, dir: string): Record<string, string> {
  return filesOfPackage(files, dir, packageDirs(files));
}

/** kpt's subpackage cases (updatePackage), by which versions have the subpackage. */
function updateSubpackage(
  dir: string,
  input: UpgradeInput,
  conflicts: MergeConflict[],
): Record<string, string> {
  const [inOriginal, inUpdated, inLocal] = [input.original, input.updated, input.local].map(files =>
    hasPackage(files, dir),
  );
  if (!inOriginal && inUpdated && inLocal) {
    throw new UpgradeError(
      `subpackage "${dir}" added in both upstream and local`,
      "SubpackageAddedOnBothSides",
      [dir],
    );
  }
  if (!inOriginal && inUpdated) return own(input.updated, dir); // added upstream
  if (!inOriginal || !inLocal) {
    // added locally (kept), deleted on both sides, or deleted locally (not re-added)
    if (inOriginal && inUpdated && !samePackage(input.original, input.updated, dir)) {
      conflicts.push(conflict("DeletedLocallyModifiedUpstream", kptfilePath(dir), "local"));
    }
    return inLocal ? own(input.local, dir) : {};
  }
  if (!inUpdated) {
    if (samePackage(input.original, input.local, dir)) return {}; // deleted upstream, untouched locally
    conflicts.push(conflict("DeletedUpstreamModifiedLocally", kptfilePath(dir), "local"));
    return own(input.local, dir);
  }
  return mergePackage(dir, input, conflicts);
}

function mergePackage(
  dir: string,
  input: UpgradeInput,
  conflicts: MergeConflict[],
): Record<string, string> {
  const kptfile = kptfilePath(dir);
  const versions = [input.original, input.updated, input.local].map(files => own(files, dir));
  for (const files of versions) delete files[kptfile];
  const parsed = versions.map(parseKrmCandidates);
  // A file is merged object by object only if it is KRM in every version that has it.
  const opaque = new Set(
    parsed.flatMap(files => [...files].filter(([, file]) => !file).map(([path]) => path)),
  );
  const krm = parsed.map(
    files =>
      new Map(
        [...files].filter(
          (entry): entry is [string, YamlFile] => !opaque.has(entry[0]) && entry[1] !== undefined,
        ),
      ),
  );
  const other = versions.map(files =>
    Object.fromEntries(Object.entries(files).filter(([path]) => !krm.some(k => k.has(path)))),
  );
  return {
    [kptfile]: mergedKptfileText(dir, input, conflicts),
    ...mergeKrmFiles(krm[0], krm[1], krm[2], versions[2], conflicts),
    ...mergeNonKrmFiles(other[0], other[1], other[2], conflicts),
  };
}

/** *.yaml / *.yml files, parsed; undefined for those that are not valid KRM. */
function parseKrmCandidates(files: Record<string, string>): Map<string, YamlFile | undefined> {
  const out = new Map<string, YamlFile | undefined>();
  for (const [path, text] of Object.entries(files)) {
    if (isKrmPath(path)) out.set(path, parseKrmFile(text, { keepCommentDocs: true }));
  }
  return out;
}
