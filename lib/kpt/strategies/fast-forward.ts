// `fast-forward`: allowed only when the local package equals the old upstream (ignoring
// kpt's own bookkeeping: merge markers, Kptfile name/upstream/upstreamLock/status); then the
// package becomes the new upstream. Unlike kpt, nothing is written when it fails.
import { sameFileContent } from "../equivalence";
import { KPTFILE, newKptfile, stringifyKptfile } from "../kptfile";
import { hasPackage, packageDirs } from "../package-layout";
import { UpgradeError, type UpgradeInput, type UpgradeResult } from "../types";
import { changedFiles } from "./common";
import { forceDeleteReplace } from "./force-delete-replace";

export function fastForward(input: UpgradeInput): UpgradeResult {
  const modified = locallyModified(input);
  if (modified.length > 0) {
    throw new UpgradeError(
      `local package files have been modified: [${modified.join(" ")}].\n  use a different update --strategy.`,
      "LocalModifications",
      modified,
    );
  }
  return forceDeleteReplace(input);
}

function locallyModified({ original, local }: UpgradeInput): string[] {
  const modified: string[] = [];
  for (const dir of packageDirs(local, original)) {
    if (hasPackage(local, dir) !== hasPackage(original, dir)) {
      modified.push(`${dir} (Package)`);
      continue;
    }
    for (const path of changedFiles(original, local, dir)) {
      // A Kptfile kpt generated because upstream had none is not a local change.
      if (
        path === KPTFILE &&
        !(KPTFILE in original) &&
        sameFileContent(path, local[path], stringifyKptfile(newKptfile("")))
      )
        continue;
      modified.push(path);
    }
  }
  return modified;
}
