import { PackageRevision, PackageVariantSet, RepositoryKind } from "../../crd-types";
import { CelCostBudget, toCelObject } from "../../lib/cel";
import {
  assignWave,
  desiredVariant,
  failedTargetWave,
  MissingRepositoryError,
  planSpecProblems,
  renderPackageVariantSpec,
  TargetContext,
  TemplateError,
  tooManyTargetsProblem,
} from "../../lib/package-variant-set";
import { selectUpstream, upstreamNotFoundMessage } from "../../lib/packages/upstream";
import { packageVariantSetKindProblems, validatePackageVariantSet } from "../../lib/validation";
import type { OperatorContext } from "../context";
import { readableKindPolicy } from "../shared/readable-kinds";
import { setTargetLimit } from "./config";
import { emptyOutcome, SetOutcome, stall } from "./status";
import { unrollTargets } from "./targets";

/**
 * The set's upstream revision, among its package's revisions in the watch's cache
 * (docs/package-variant-sets.md, “Reconcile”).
 */
async function findUpstream(
  ctx: OperatorContext,
  set: PackageVariantSet,
): Promise<PackageRevision | undefined> {
  const upstream = set.spec?.upstream ?? {};
  const revisions = await ctx.caches.revisions.ofPackage(
    set.metadata?.namespace ?? "",
    upstream.repo,
    upstream.package,
  );
  return selectUpstream(revisions, upstream);
}

/**
 * The namespace's Repositories, from the watch's cache (primed by one LIST): a set reconciles
 * at every change of its variants, and a LIST each time was a request per variant or so at
 * fan-out. A Repository's event updates the cache before it enqueues the sets it concerns.
 */
async function repositoriesOf(ctx: OperatorContext, namespace: string) {
  const cache = ctx.caches.repositories;
  await cache.prime(namespace, () => ctx.cluster.list(RepositoryKind, { namespace }));
  // In name order, as a LIST answers: what the templates see does not depend on event order.
  const list = cache
    .by("namespace", namespace)
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  return new Map(list.map(r => [r.metadata?.name ?? "", toCelObject(r)]));
}

/** Renders each target's PackageVariant; a failing target is reported and does not stop the rest. */
function renderTargets(
  set: PackageVariantSet,
  upstream: PackageRevision,
  contexts: TargetContext[],
  repositories: Awaited<ReturnType<typeof repositoriesOf>>,
  outcome: SetOutcome,
): void {
  const inputs = {
    upstream: set.spec?.upstream ?? {},
    upstreamObject: toCelObject(upstream),
    repositories,
    // One budget per reconcile of the set: a costly template fails its targets, not the loop.
    budget: new CelCostBudget(),
  };
  const rollout = set.spec?.rollout;
  for (const ctx of contexts) {
    try {
      const desired = desiredVariant(
        set.metadata?.name ?? "",
        renderPackageVariantSpec(ctx, inputs),
      );
      if (rollout) desired.wave = assignWave(ctx, desired.spec, inputs, rollout, inputs.budget);
      outcome.desired.push(desired);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      outcome.failedTargets.push({
        repository: error instanceof MissingRepositoryError ? error.repository : ctx.repoDefault,
        package: ctx.packageDefault,
        message: error.message,
        ...(rollout && { wave: failedTargetWave(ctx, inputs, rollout, inputs.budget) }),
      });
    }
  }
  if (outcome.failedTargets.length > 0) {
    const messages = [...new Set(outcome.failedTargets.map(f => f.message))];
    stall(outcome, "ValidationError", messages.join("; "));
  }
}

export interface DesiredSet {
  outcome: SetOutcome;
  /** False when nothing can be planned (invalid spec, no upstream): touch no PackageVariant. */
  plannable: boolean;
  /** True when every target was computed: only then may the set shrink. */
  complete: boolean;
}

/**
 * Everything a set wants, read from the cluster and computed, with nothing written: validation,
 * upstream lookup, target unrolling and template evaluation (docs/package-variant-sets.md,
 * “Reconcile”). The controller acts on it; `npm run preview` prints it.
 */
export async function computeDesiredSet(
  ctx: OperatorContext,
  set: PackageVariantSet,
): Promise<DesiredSet> {
  const outcome = emptyOutcome();
  const problems = [
    ...validatePackageVariantSet(set.spec),
    ...planSpecProblems(set.spec),
    ...packageVariantSetKindProblems(set.spec, await readableKindPolicy(ctx)),
  ];
  if (problems.length > 0) {
    stall(outcome, "ValidationError", problems.join("; "));
    return { outcome, plannable: false, complete: false };
  }
  const upstream = await findUpstream(ctx, set);
  if (!upstream) {
    stall(outcome, "UpstreamNotFound", upstreamNotFoundMessage(set.spec?.upstream ?? {}));
    return { outcome, plannable: false, complete: false };
  }
  const targets = await unrollTargets(ctx, set, setTargetLimit.maxTargets);
  outcome.emptyTargets = targets.empty;
  if (targets.overLimit !== undefined) {
    const tooMany = tooManyTargetsProblem(targets.overLimit, setTargetLimit.maxTargets, true);
    // Nothing planned: no variant created, none of the existing ones deleted.
    stall(outcome, "TooManyTargets", tooMany ?? "");
    return { outcome, plannable: false, complete: false };
  }
  renderTargets(
    set,
    upstream,
    targets.contexts,
    await repositoriesOf(ctx, set.metadata?.namespace ?? ""),
    outcome,
  );
  if (targets.noMatch.length > 0) stall(outcome, "NoMatchingTargets", targets.noMatch.join("; "));
  return { outcome, plannable: true, complete: targets.noMatch.length === 0 && !outcome.stalled };
}
