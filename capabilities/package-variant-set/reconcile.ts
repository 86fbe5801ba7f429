import { PackageVariantSet, PackageVariantSetKind } from "../../crd-types";
import { errorMessage } from "../../lib/errors";
import { newlyEmptyTargets, planSet } from "../../lib/package-variant-set";
import { splitKey } from "../../lib/controller/manager";
import type { OperatorContext } from "../context";
import { computeDesiredSet } from "./desired";
import { planStep } from "./plan";
import { emptyOutcome, SetOutcome, writeStatus } from "./status";
import { applyPlan, listVariants } from "./variants";

async function getSet(ctx: OperatorContext, key: string): Promise<PackageVariantSet | undefined> {
  return ctx.cluster.get(PackageVariantSetKind, splitKey(key));
}

async function reconcileVariants(
  ctx: OperatorContext,
  set: PackageVariantSet,
  complete: boolean,
  outcome: SetOutcome,
): Promise<void> {
  const existing = await listVariants(ctx, set);
  const plan = planSet(set.metadata?.name ?? "", outcome.desired, existing, complete);
  outcome.variants = new Map(existing.map(pv => [pv.metadata?.name ?? "", pv]));
  outcome.plan = await planStep(ctx, set, plan);
  if (outcome.plan?.decision.apply === false) return; // Plan mode: nothing written until approved
  const result = await applyPlan(ctx, set, plan);
  outcome.writeFailures = result.failures;
  if (result.failures.size > 0)
    outcome.error = `${result.failures.size} PackageVariant(s) could not be written: ${[...result.failures].map(([n, m]) => `${n}: ${m}`).join("; ")}`;
  const changes = [
    result.created && `created ${result.created}`,
    result.updated && `updated ${result.updated}`,
    result.deleted && `deleted ${result.deleted}`,
  ].filter(Boolean);
  if (changes.length > 0)
    await ctx.cluster.event(
      set,
      "Normal",
      "PackageVariantsReconciled",
      `${changes.join(", ")} PackageVariant(s)`,
    );
}

/**
 * One PackageVariantSet, level-triggered: compute what it wants (validation, upstream, targets,
 * templates), make the PackageVariants match, write the status. A failure that a retry may
 * fix throws after the status is written, so the queue retries with backoff.
 */
export async function reconcilePackageVariantSet(key: string, ctx: OperatorContext): Promise<void> {
  const sets = ctx.caches.setIndex;
  const set = await getSet(ctx, key);
  if (!set) return sets.remove(key);
  sets.upsert(set, key);
  if (set.metadata?.deletionTimestamp) return; // its PackageVariants go by garbage collection
  let outcome = emptyOutcome();
  try {
    const desired = await computeDesiredSet(ctx, set);
    outcome = desired.outcome;
    if (!desired.plannable) return writeStatus(ctx, set, outcome);
    await reconcileVariants(ctx, set, desired.complete, outcome);
    // Failed targets too: creating their missing repository must reconcile the set again.
    sets.setDownstreamRepos(key, [
      ...outcome.desired.map(d => d.spec.downstream?.repo ?? ""),
      ...outcome.failedTargets.map(f => f.repository),
    ]);
  } catch (error) {
    outcome.error = errorMessage(error);
    outcome.incomplete = true;
  }
  for (const message of newlyEmptyTargets(set, outcome))
    await ctx.cluster.event(set, "Warning", "NoTargetsSelected", message);
  await writeStatus(ctx, set, outcome);
  if (outcome.error) throw new Error(outcome.error);
}
