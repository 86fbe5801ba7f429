import {
  PackageRevision,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
  PackageVariant,
} from "../../crd-types";
import { refOf } from "../../lib/cluster/port";
import { keyOf } from "../../lib/controller/manager";
import { upgradePackage } from "../../lib/kpt";
import {
  CheckMutationsStep,
  decideMutations,
  InClusterRef,
  MutationChecks,
  MutationDecision,
} from "../../lib/package-variant";
import type { OperatorContext } from "../context";
import { writeResources } from "../shared/package-resources";
import { mutated, readAgain } from "../shared/variant-mutations";
import { contentOf } from "../shared/revision-content";
import { createDraft } from "./revisions";
import { noteRenderStatus } from "./status";

export const FIELD_MANAGER = "packagevariant-controller";

async function resourcesOf(
  ctx: OperatorContext,
  pr: PackageRevision,
): Promise<PackageRevisionResources> {
  const prr = await ctx.cluster.get(PackageRevisionResourcesKind, refOf(pr));
  // Created with the revision: a missing one is a moment's lag, retried.
  if (!prr) throw new Error(`PackageRevisionResources "${pr.metadata?.name}" not found`);
  return prr;
}

export interface MutationOutcome {
  decision: MutationDecision;
  /** What injection looked up: watched, so a change to one produces an updated draft. */
  injected: InClusterRef[];
  /** This check created the edit draft (it was not there from an earlier attempt). */
  created?: boolean;
  /** The downstream's PackageRevisionResources version after the check (its render's target). */
  resourcesVersion: string | undefined;
}

/**
 * MUTATIONS_CHANGED or UP_TO_DATE (docs/package-variants.md, “State machine”): the package
 * context, the prepended functions and the injected configuration, applied to the downstream's
 * files. A Draft or Proposed downstream is updated in place; a published one gets an edit
 * draft (mutated once its source ran).
 */
export async function checkMutations(
  ctx: OperatorContext,
  pv: PackageVariant,
  step: CheckMutationsStep,
): Promise<MutationOutcome> {
  const checks = ctx.caches.mutationChecks;
  const revision = keyOf(step.downstream);
  // The watch knows the files' version: unchanged since a check that found nothing (or since
  // the source applied the same mutations), and the injected objects it read unchanged, no read.
  const watched = ctx.caches.resources.named(refOf(step.downstream))?.metadata?.resourceVersion;
  const known = checks.toConfirm(revision, MutationChecks.stamp(pv, watched));
  if (
    known &&
    (known.read.length === 0 || MutationChecks.same(known, await readAgain(ctx, known.read)))
  ) {
    const unchanged = decideMutations(step, false);
    return { decision: unchanged, injected: known.watched, resourcesVersion: watched };
  }
  const prr = await resourcesOf(ctx, step.downstream);
  noteRenderStatus(ctx, step.downstream, prr);
  const files = prr.spec?.resources ?? {};
  const { result, injected, fetched } = await mutated(ctx, pv, step.downstream, files);
  const stamp = MutationChecks.stamp(pv, prr.metadata?.resourceVersion);
  checks.record(revision, stamp, !result.changed, MutationChecks.reads(injected, fetched));
  const decision = decideMutations(step, result.changed);
  let resourcesVersion = prr.metadata?.resourceVersion;
  if (decision.writeTo) {
    const written = await writeResources(
      ctx,
      step.downstream,
      { ...result.files },
      FIELD_MANAGER,
      prr.metadata?.resourceVersion,
    );
    resourcesVersion = written.metadata?.resourceVersion;
  }
  const created = decision.createEditDraft
    ? await createDraft(ctx, pv, decision.createEditDraft)
    : false;
  return { decision, injected, created, resourcesVersion };
}

/**
 * UPSTREAM_CHANGED on a Draft downstream: `kpt pkg update` on the draft itself (three-way merge
 * of the old upstream, the new one and the draft), then the mutations, in one write.
 */
export async function upgradeInPlace(
  ctx: OperatorContext,
  pv: PackageVariant,
  downstream: PackageRevision,
  oldUpstream: PackageRevision,
  newUpstream: PackageRevision,
): Promise<InClusterRef[]> {
  const ns = pv.metadata?.namespace ?? "";
  const [original, updated, prr] = await Promise.all([
    contentOf(ctx, ns, oldUpstream.metadata?.name ?? "", "old upstream"),
    contentOf(ctx, ns, newUpstream.metadata?.name ?? "", "new upstream"),
    resourcesOf(ctx, downstream),
  ]);
  const merged = upgradePackage(
    {
      original: original.content.files,
      updated: updated.content.files,
      local: prr.spec?.resources ?? {},
    },
    "resource-merge",
    updated.lock,
  );
  // Always a change: at least the Kptfile's upstream and upstreamLock move to the new upstream.
  const { result, injected } = await mutated(ctx, pv, downstream, { ...merged.files });
  await writeResources(
    ctx,
    downstream,
    { ...result.files },
    FIELD_MANAGER,
    prr.metadata?.resourceVersion,
  );
  return injected;
}
