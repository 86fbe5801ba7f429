import {
  PackageRevision,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
  PackageVariant,
  RepositoryKind,
} from "../../crd-types";
import { refOf } from "../../lib/cluster/port";
import { keyOf } from "../../lib/controller/manager";
import { errorMessage } from "../../lib/errors";
import { upgradePackage } from "../../lib/kpt";
import {
  applyMutations,
  type DownstreamRepository,
  CheckMutationsStep,
  decideMutations,
  FetchedObjects,
  FetchOutcome,
  InClusterRef,
  inClusterKey,
  MutationChecks,
  MutationDecision,
  objectsToFetch,
} from "../../lib/package-variant";
import type { OperatorContext } from "../context";
import { unreadableKind } from "../shared/readable-kinds";
import { writeResources } from "../shared/package-resources";
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

/** Phase 2 of config injection: the in-cluster objects the injection points asked for. */
async function fetchInCluster(ctx: OperatorContext, refs: InClusterRef[]): Promise<FetchedObjects> {
  const fetched = new Map<string, FetchOutcome>();
  await Promise.all(
    refs.map(async ref => {
      // The package names the kind: an upstream author may not widen what the operator reads.
      const unreadable = unreadableKind("config injection", ref.apiVersion, ref.kind, true);
      if (unreadable)
        return void fetched.set(inClusterKey(ref), { status: "error", message: unreadable });
      try {
        const object = await ctx.discovery.getObject(
          await ctx.discovery.resolveKind(ref.apiVersion, ref.kind),
          ref.namespace,
          ref.name,
        );
        fetched.set(
          inClusterKey(ref),
          object ? { status: "found", object } : { status: "notFound" },
        );
      } catch (error) {
        fetched.set(inClusterKey(ref), { status: "error", message: errorMessage(error) });
      }
    }),
  );
  return fetched;
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

/** The downstream's Repository as the mutations see it (from the watch's cache). */
async function repositoryOf(
  ctx: OperatorContext,
  downstream: PackageRevision,
): Promise<DownstreamRepository> {
  const repo = await ctx.cluster.get(RepositoryKind, {
    namespace: downstream.metadata?.namespace ?? "",
    name: downstream.spec?.repository ?? "",
  });
  return { deployment: repo?.spec?.deployment === true };
}

/** The variant's mutations applied to `downstream`'s `files`, and the objects injection read. */
async function mutated(
  ctx: OperatorContext,
  pv: PackageVariant,
  downstream: PackageRevision,
  files: Record<string, string>,
) {
  const injected = objectsToFetch(files, pv);
  const [fetched, repository] = await Promise.all([
    fetchInCluster(ctx, injected),
    repositoryOf(ctx, downstream),
  ]);
  return { result: applyMutations(files, pv, fetched, repository), injected };
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
  // The watch knows the files' version: unchanged since a check that found nothing, no read.
  const watched = ctx.caches.resources.named(refOf(step.downstream))?.metadata?.resourceVersion;
  if (checks.unchanged(revision, MutationChecks.stamp(pv, watched)))
    return { decision: decideMutations(step, false), injected: [], resourcesVersion: watched };
  const prr = await resourcesOf(ctx, step.downstream);
  noteRenderStatus(ctx, step.downstream, prr);
  const { result, injected } = await mutated(ctx, pv, step.downstream, prr.spec?.resources ?? {});
  const stamp = MutationChecks.stamp(pv, prr.metadata?.resourceVersion);
  checks.record(revision, stamp, !result.changed && injected.length === 0);
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
