// Splitting a package's files into the root package and its subpackages (directories with
// their own Kptfile), as kpt processes each (sub)package on its own.
import type { PackageFiles } from "./types";
import { isKptfilePath, KPTFILE } from "./kptfile-name";

export function dirName(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

export function joinPath(dir: string, name: string): string {
  return dir ? `${dir}/${name}` : name;
}

export function kptfilePath(dir: string): string {
  return joinPath(dir, KPTFILE);
}

/** Package directories ("" = root) found in any of the packages, parents before children. */
export function packageDirs(...packages: readonly PackageFiles[]): string[] {
  const dirs = new Set<string>([""]);
  for (const files of packages) {
    for (const path of Object.keys(files)) {
      if (isKptfilePath(path)) dirs.add(dirName(path));
    }
  }
  return [...dirs].sort((a, b) => depth(a) - depth(b) || a.localeCompare(b));
}

function depth(dir: string): number {
  return dir ? dir.split("/").length : 0;
}

/** The innermost package directory that contains `path`. */
export function owningPackage(path: string, dirs: readonly string[]): string {
  let best = "";
  for (const dir of dirs) {
    if (dir && path.startsWith(`${dir}/`) && dir.length > best.length) best = dir;
  }
  return best;
}

/** The files that belong to package `dir` itself (not to its subpackages). */
export function filesOfPackage(
  files: PackageFiles,
  dir: string,
  dirs: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, content] of Object.entries(files)) {
    if (owningPackage(path, dirs) === dir) out[path] = content;
  }
  return out;
}

/** Does package `dir` exist in `files` (root: always; subpackage: has its Kptfile)? */
export function hasPackage(files: PackageFiles, dir: string): boolean {
  return dir === "" || kptfilePath(dir) in files;
}
