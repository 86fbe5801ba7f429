// The rollout's and the deletion guard's part of a set's status: their fields and conditions.
import type { PackageVariantSet } from "../../crd-types";
import { Condition, ConditionInput, findCondition, setCondition } from "../kubernetes/conditions";
import type { DeletionGuardStatus } from "./deletion-guard";
import type { RolloutStatus } from "./rollout";

function rolloutCondition(rollout: RolloutStatus): ConditionInput {
  const h = rollout.halted;
  if (h) {
    const target = h.packageVariant
      ? `PackageVariant "${h.packageVariant}"`
      : `target ${h.repository}/${h.package}`;
    return {
      type: "RolloutHalted",
      status: "True",
      reason: h.reason ?? "TargetFailed",
      message: `wave "${rollout.currentWave}" halted by ${target}: ${h.message}`,
    };
  }
  if (rollout.phase === "Paused")
    return {
      type: "RolloutHalted",
      status: "True",
      reason: "Paused",
      message: `paused at wave "${rollout.currentWave}" (spec.rollout.paused)`,
    };
  return rollout.phase === "Complete"
    ? {
        type: "RolloutHalted",
        status: "False",
        reason: "Complete",
        message: "every wave reached the gate",
      }
    : {
        type: "RolloutHalted",
        status: "False",
        reason: "Progressing",
        message: `wave "${rollout.currentWave}" in progress`,
      };
}

function guardCondition(held: DeletionGuardStatus): ConditionInput {
  const names = held.packageVariants ?? [];
  const more = (held.count ?? 0) - names.length;
  return {
    type: "DeletionsHeld",
    status: "True",
    reason: "TooManyDeletions",
    message:
      `would delete ${held.count} of ${held.of} PackageVariants, more than the ${held.limit} ` +
      `spec.deletionGuard.maxDeletions allows, because ${held.reason}: ${names.join(", ")}` +
      `${more > 0 ? ` and ${more} more` : ""}; nothing is deleted until ` +
      `spec.deletionGuard.acknowledgedGeneration is set to ${held.generation}`,
  };
}

/**
 * Adds status.rollout and status.deletionGuard and their conditions, RolloutHalted (with
 * spec.rollout) and DeletionsHeld (once deletions were held: then False when none are).
 */
export function withRolloutStatus(
  set: PackageVariantSet,
  conditions: Condition[],
  rollout: RolloutStatus | undefined,
  held: DeletionGuardStatus | undefined,
  now: Date,
): { conditions: Condition[]; rollout?: RolloutStatus; deletionGuard?: DeletionGuardStatus } {
  const generation = set.metadata?.generation;
  // Without spec.rollout there is no rollout to report on.
  let result = rollout ? conditions : conditions.filter(c => c.type !== "RolloutHalted");
  if (rollout) result = setCondition(result, rolloutCondition(rollout), generation, now);
  if (held) result = setCondition(result, guardCondition(held), generation, now);
  else if (findCondition(result, "DeletionsHeld"))
    result = setCondition(
      result,
      {
        type: "DeletionsHeld",
        status: "False",
        reason: "WithinLimit",
        message: "no deletion is held",
      },
      generation,
      now,
    );
  return {
    conditions: result,
    ...(rollout && { rollout }),
    ...(held && { deletionGuard: held }),
  };
}
