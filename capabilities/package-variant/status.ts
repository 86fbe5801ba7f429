import { isDeepStrictEqual } from "node:util";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
  PackageVariant,
  PackageVariantKind,
  PackageVariantStatus,
} from "../../crd-types";
import { Condition, setCondition } from "../../lib/kubernetes/conditions";
import {
  boundedDownstreamTargets,
  variantConditions,
  type VariantOutcome,
} from "../../lib/package-variant";
import { refOf } from "../../lib/cluster/port";
import type { OperatorContext } from "../context";
import { rememberRenderStatus } from "../shared/render-statuses";

type RenderStatus = NonNullable<PackageRevisionResources["status"]>["renderStatus"];

export function forgetRenderStatus(ctx: OperatorContext, pr: PackageRevision): void {
  ctx.caches.renderStatuses.delete(`${pr.metadata?.namespace ?? ""}/${pr.metadata?.name ?? ""}`);
}

/**
 * Keeps the render status of a PackageRevisionResources this reconcile read anyway (the
 * mutation check reads the files) when it is the version its revision says was rendered.
 */
export function noteRenderStatus(
  ctx: OperatorContext,
  pr: PackageRevision,
  prr: PackageRevisionResources,
): void {
  const version = prr.metadata?.resourceVersion;
  if (version && version === pr.status?.observedPrrResourceVersion) rememberRenderStatus(ctx, prr);
}

/**
 * The render status of the version `name` says was rendered: as the render wrote it (kept by
 * its writer in this process), else read from the API server. A version kept that is not that
 * one (a newer render not stated yet) stays for the status write after that one.
 */
async function renderStatusOf(
  ctx: OperatorContext,
  namespace: string,
  name: string,
): Promise<RenderStatus> {
  const rendered = ctx.caches.revisions.named(namespace, name)?.status?.observedPrrResourceVersion;
  // Not rendered yet (as far as the watch knows): there is no render status to copy.
  if (!rendered) return undefined;
  const known = ctx.caches.renderStatuses.get(`${namespace}/${name}`);
  if (known?.version === rendered) return known.renderStatus;
  const prr = await ctx.cluster.get(PackageRevisionResourcesKind, { namespace, name });
  // The render's status is written before the revision records the version it rendered.
  if (prr?.metadata?.resourceVersion === rendered) rememberRenderStatus(ctx, prr);
  return prr?.status?.renderStatus;
}

/**
 * Stalled and Ready (lib/package-variant/readiness.ts), observedGeneration, and downstreamTargets with each target's render status. Written only
 * when something changed.
 */
export async function writeVariantStatus(
  ctx: OperatorContext,
  pv: PackageVariant,
  outcome: VariantOutcome,
): Promise<void> {
  const generation = pv.metadata?.generation;
  let conditions = (pv.status?.conditions ?? []) as Condition[];
  for (const condition of variantConditions(outcome))
    conditions = setCondition(conditions, condition, generation, ctx.now());
  const ns = pv.metadata?.namespace ?? "";
  // Cut to a bounded size: a tenant's failing pipelines must not grow the variant past the API's limit.
  const downstreamTargets = boundedDownstreamTargets(
    await Promise.all(
      outcome.targets.map(async name => {
        const renderStatus = await renderStatusOf(ctx, ns, name);
        return { name, ...(renderStatus && { renderStatus }) };
      }),
    ),
  );
  const status: PackageVariantStatus = {
    observedGeneration: generation,
    conditions: conditions as PackageVariantStatus["conditions"],
    downstreamTargets,
  };
  if (isDeepStrictEqual(status, pv.status)) return;
  await ctx.cluster.patch(PackageVariantKind, refOf(pv), { merge: { status } }, { status: true });
}
