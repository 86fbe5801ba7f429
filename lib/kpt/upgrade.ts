// `kpt pkg update` / Porch's upgrade task on in-memory packages: moves a local package from
// its old upstream (original) to a new one (updated) with one of kpt's strategies, records the
// new upstream in the Kptfile and adds merge markers to all resources. Conflicts that kpt
// resolves silently are returned. Pure: on error nothing is produced.
import { addMergeMarkersToPackage } from "./annotate";
import { KPTFILE, removeStatus, setUpstream, stringifyKptfile } from "./kptfile";
import { kptfileIn } from "./strategies/common";
import { copyMerge } from "./strategies/copy-merge";
import { fastForward } from "./strategies/fast-forward";
import { forceDeleteReplace } from "./strategies/force-delete-replace";
import { resourceMerge } from "./strategies/resource-merge";
import {
  type GitLock,
  UPDATE_STRATEGIES,
  type UpdateStrategy,
  UpgradeError,
  type UpgradeInput,
  type UpgradeResult,
} from "./types";

const STRATEGIES: Readonly<Record<UpdateStrategy, (input: UpgradeInput) => UpgradeResult>> = {
  "resource-merge": resourceMerge,
  "fast-forward": fastForward,
  "force-delete-replace": forceDeleteReplace,
  "copy-merge": copyMerge,
};

export function isUpdateStrategy(value: string): value is UpdateStrategy {
  return (UPDATE_STRATEGIES as readonly string[]).includes(value);
}

/**
 * Upgrades `input.local` from `input.original` to `input.updated`.
 * Throws UpgradeError (LocalModifications for fast-forward on a modified package,
 * SubpackageAddedOnBothSides, InvalidStrategy, InvalidPackage).
 */
export function upgradePackage(
  input: UpgradeInput,
  strategy: UpdateStrategy = "resource-merge",
  newUpstreamLock: GitLock,
): UpgradeResult {
  if (!isUpdateStrategy(strategy)) {
    throw new UpgradeError(
      `unrecognized update strategy "${String(strategy)}"; use one of ${UPDATE_STRATEGIES.join(", ")}`,
      "InvalidStrategy",
    );
  }
  const result = STRATEGIES[strategy](input);
  const kptfile = kptfileIn(result.files, KPTFILE);
  if (!kptfile)
    throw new UpgradeError("upgraded package has no Kptfile", "InvalidPackage", [KPTFILE]);
  setUpstream(kptfile, newUpstreamLock, strategy);
  if (strategy === "fast-forward") removeStatus(kptfile);
  const files = addMergeMarkersToPackage({ ...result.files, [KPTFILE]: stringifyKptfile(kptfile) });
  return { files, conflicts: result.conflicts };
}
