import type { PackageVariant, PackageVariantSet } from "../../crd-types";
import { findCondition } from "../../lib/kubernetes/conditions";
import {
  decideRollout,
  guardDeletions,
  SetPlan,
  targetOf,
  VariantProgress,
} from "../../lib/package-variant-set";
import type { OperatorContext } from "../context";
import type { SetOutcome } from "./status";

/** A PackageVariant's readiness (as the set's status reads it) and its downstream revisions. */
async function progressOf(ctx: OperatorContext, pv: PackageVariant): Promise<VariantProgress> {
  const name = pv.metadata?.name ?? "";
  const target = targetOf(
    { identifier: "", name, spec: pv.spec ?? {} },
    { writeFailures: new Map(), variants: new Map([[name, pv]]) },
  );
  const revisions = await ctx.caches.revisions.ownedBy(pv.metadata?.namespace ?? "", name);
  const open = revisions.filter(
    pr => pr.spec?.lifecycle !== "Published" && !pr.metadata?.deletionTimestamp,
  );
  const conflicts = open
    .map(pr => findCondition(pr.status?.conditions, "Upgraded"))
    .find(c => c?.reason === "MergedWithConflicts")?.message;
  return {
    ready: target.ready ?? "Unknown",
    message: target.message,
    published: open.length === 0 && revisions.some(pr => pr.spec?.lifecycle === "Published"),
    ...(conflicts && { conflicts }),
  };
}

/**
 * The deletion guard, then the rollout (with spec.rollout): what is left of the plan for this
 * reconcile to carry out; what they hold back is recorded in the outcome for the status.
 */
export async function releasedPlan(
  ctx: OperatorContext,
  set: PackageVariantSet,
  plan: SetPlan,
  existing: PackageVariant[],
  outcome: SetOutcome,
): Promise<SetPlan> {
  const guard = guardDeletions(set, existing, plan.delete);
  outcome.deletionsHeld = guard.status;
  const guarded = guard.allowed ? plan : { ...plan, delete: [] };
  const rollout = set.spec?.rollout;
  if (!rollout) return guarded;
  const progress = new Map<string, VariantProgress>();
  for (const pv of existing) progress.set(pv.metadata?.name ?? "", await progressOf(ctx, pv));
  const decision = decideRollout(rollout, guarded, progress, outcome.failedTargets);
  outcome.rollout = decision.status;
  return decision.plan;
}
