// Plan mode of a set (docs/package-variant-sets.md, “A plan before anything changes”): the
// step between planSet and applyPlan. Reads only (watch caches, package content); writes nothing.
import {
  PackageRevisionResourcesKind,
  type PackageVariant,
  type PackageVariantSet,
} from "../../crd-types";
import { refOf } from "../../lib/cluster/port";
import { mapLimit } from "../../lib/controller/concurrency";
import { errorMessage } from "../../lib/errors";
import { planPackageVariant, type VariantPlan } from "../../lib/package-variant";
import {
  decidePlan,
  failedPreview,
  plannedTargets,
  previewUpgrade,
  upgradesToPreview,
  type PlanDecision,
  type PlannedTarget,
  type PlanStatus,
  type SetPlan,
  type UpgradePreview,
} from "../../lib/package-variant-set";
import { selectUpstream } from "../../lib/packages/upstream";
import type { OperatorContext } from "../context";
import { relevantRevisions } from "../package-variant/revisions";
import { contentOf } from "../shared/revision-content";

/** Packages read at once for previews: three per upgrade, from the git caches. */
const PREVIEW_CONCURRENCY = 4;
/** Previews kept between reconciles; a set re-planned without a new revision reads nothing. */
const PREVIEW_CACHE_ENTRIES = 1000;

const previewCaches = new WeakMap<OperatorContext, Map<string, UpgradePreview>>();

function previewCache(ctx: OperatorContext): Map<string, UpgradePreview> {
  let cache = previewCaches.get(ctx);
  if (!cache) previewCaches.set(ctx, (cache = new Map()));
  return cache;
}

/**
 * The state machine's plan for each existing variant under the spec the set would give it:
 * from the watch's caches, no API read.
 */
async function variantPlansOf(
  ctx: OperatorContext,
  plan: SetPlan,
): Promise<Map<string, VariantPlan>> {
  const plans = new Map<string, VariantPlan>();
  for (const { existing, desired } of [...plan.update, ...plan.unchanged]) {
    const pv = { ...(existing as PackageVariant), spec: desired.spec };
    const revisions = await relevantRevisions(ctx, pv);
    const upstream = selectUpstream(revisions, desired.spec.upstream ?? {});
    plans.set(desired.name, planPackageVariant({ pv, upstream, revisions }));
  }
  return plans;
}

/**
 * An upgrade's merge, in memory, on the files the PackageVariant controller would merge: the
 * two upstream revisions from git, the downstream's current files. Cached by the revisions and
 * the downstream files' version (published upstreams do not change).
 */
async function previewOf(
  ctx: OperatorContext,
  namespace: string,
  target: PlannedTarget,
): Promise<UpgradePreview> {
  const { oldUpstream, newUpstream, downstream } = target.upgrade!;
  const version = ctx.caches.resources.named(refOf(downstream))?.metadata?.resourceVersion;
  const cache = previewCache(ctx);
  // UIDs: a revision deleted and made again under its name is other content.
  const key = JSON.stringify([
    oldUpstream.metadata?.uid ?? oldUpstream.metadata?.name,
    newUpstream.metadata?.uid ?? newUpstream.metadata?.name,
    downstream.metadata?.uid ?? downstream.metadata?.name,
    version,
  ]);
  const cached = version === undefined ? undefined : cache.get(key);
  if (cached) return cached;
  let preview: UpgradePreview;
  try {
    const [original, updated, local] = await Promise.all([
      contentOf(ctx, namespace, oldUpstream.metadata?.name ?? "", "old upstream"),
      contentOf(ctx, namespace, newUpstream.metadata?.name ?? "", "new upstream"),
      ctx.cluster.get(PackageRevisionResourcesKind, refOf(downstream)),
    ]);
    if (!local)
      return failedPreview(`PackageRevisionResources "${downstream.metadata?.name}" not found`);
    preview = previewUpgrade(
      {
        original: original.content.files,
        updated: updated.content.files,
        local: local.spec?.resources ?? {},
      },
      updated.lock,
    );
  } catch (error) {
    // Not cached: a git server that was down may answer at the next reconcile.
    return failedPreview(`preview failed: ${errorMessage(error)}`);
  }
  if (version !== undefined) {
    if (cache.size >= PREVIEW_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, preview);
  }
  return preview;
}

/**
 * In Plan mode, the plan's status and whether to apply it now; undefined in Apply mode (the
 * set applies at once, as it always did).
 */
export async function planStep(
  ctx: OperatorContext,
  set: PackageVariantSet,
  plan: SetPlan,
): Promise<{ status: PlanStatus; decision: PlanDecision } | undefined> {
  const spec = set.spec?.plan;
  if (spec?.mode !== "Plan") return undefined;
  const namespace = set.metadata?.namespace ?? "";
  const targets = plannedTargets(plan, await variantPlansOf(ctx, plan));
  const previews = new Map<string, UpgradePreview>();
  await mapLimit(upgradesToPreview(targets), PREVIEW_CONCURRENCY, async t =>
    previews.set(t.entry?.packageVariant ?? "", await previewOf(ctx, namespace, t)),
  );
  return decidePlan(targets, previews, {
    setName: set.metadata?.name ?? "",
    generation: set.metadata?.generation,
    approvedPlan: spec.approvedPlan || undefined,
    appliedPlan: set.status?.plan?.appliedPlan,
  });
}
