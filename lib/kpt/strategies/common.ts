// Pieces shared by the update strategies: the Kptfile of a (sub)package, its 3-way merge, and
// detecting local changes.
import { cloneNode, getField } from "../../krm/nodes";
import { conflict, fieldConflictSink } from "../conflicts";
import { sameFileContent } from "../equivalence";
import { mergeKptfile } from "../kptfile-merge";
import {
  KPTFILE,
  KPTFILE_API_VERSION,
  type Kptfile,
  KptfileError,
  kptfileName,
  parseKptfile,
  setSection,
  stringifyKptfile,
} from "../kptfile";
import { filesOfPackage, kptfilePath, packageDirs } from "../package-layout";
import { type MergeConflict, type PackageFiles, UpgradeError, type UpgradeInput } from "../types";

/** The Kptfile at `path` of a package, if any; one that does not parse is an InvalidPackage. */
export function kptfileIn(files: PackageFiles, path: string): Kptfile | undefined {
  const text = files[path];
  if (text === undefined) return undefined;
  try {
    return parseKptfile(text, path);
  } catch (error) {
    if (error instanceof KptfileError)
      throw new UpgradeError(error.message, "InvalidPackage", [path]);
    throw error;
  }
}

/**
 * The local Kptfile of package `dir` with upstream's info/pipeline/labels/annotations/inventory
 * changes merged in. A subpackage also takes updated's upstream/upstreamLock (kpt's
 * updateUpstream for non-root packages); the root's are set by the caller.
 */
export function mergedKptfileText(
  dir: string,
  input: UpgradeInput,
  conflicts: MergeConflict[],
): string {
  const path = kptfilePath(dir);
  const local = kptfileIn(input.local, path);
  if (!local) throw new UpgradeError(`local package has no ${path}`, "InvalidPackage", [path]);
  const baseline = stringifyKptfile(local);
  const updated = kptfileIn(input.updated, path);
  const resource = { apiVersion: KPTFILE_API_VERSION, kind: "Kptfile", name: kptfileName(local) };
  mergeKptfile(
    local,
    kptfileIn(input.original, path),
    updated,
    fieldConflictSink(conflicts, path, resource),
  );
  if (dir && updated) {
    for (const section of ["upstream", "upstreamLock"]) {
      const value = getField(updated.root, section);
      if (value !== undefined) setSection(local, section, cloneNode(value));
    }
  }
  const text = stringifyKptfile(local);
  return text === baseline ? input.local[path] : text;
}

/**
 * LocalChangesDiscarded for each local file among `replaced` (the root Kptfile aside: it is
 * merged) whose content is neither upstream's old nor its new one: a replacing strategy lost it.
 */
export function discardedLocalChanges(
  input: UpgradeInput,
  replaced: (path: string) => boolean = () => true,
): MergeConflict[] {
  return Object.keys(input.local)
    .sort()
    .filter(path => path !== KPTFILE && replaced(path))
    .filter(
      path =>
        !sameFileContent(path, input.local[path], input.original[path]) &&
        !sameFileContent(path, input.local[path], input.updated[path]),
    )
    .map(path => conflict("LocalChangesDiscarded", path, "upstream"));
}

/** Package-relative paths whose content differs between the two packages (ignoring kpt's bookkeeping). */
export function changedFiles(before: PackageFiles, after: PackageFiles, dir: string): string[] {
  const a = filesOfPackage(before, dir, packageDirs(before));
  const b = filesOfPackage(after, dir, packageDirs(after));
  const paths = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...paths].filter(path => !sameFileContent(path, a[path], b[path])).sort();
}

/** Whole-package equality (all files of package `dir`, ignoring kpt's bookkeeping). */
export function samePackage(before: PackageFiles, after: PackageFiles, dir: string): boolean {
  return changedFiles(before, after, dir).length === 0;
}
