import { PackageRevision, PackageRevisionKind } from "../../crd-types";
import type { ReconcileResult } from "../../lib/controller/work-queue";
import type { ContentStore } from "../../lib/git";
import { failureOutcome, type RevisionOutcome } from "../../lib/package-revision";
import { recordedRepositoryUid } from "../../lib/packages/deletion";
import type { OperatorContext } from "../context";
import { splitKey } from "../../lib/controller/manager";
import { refreshLatestLabels } from "../shared/latest-revision-labels";
import { reconcileApprovalPolicy } from "./approval-policy";
import { reconcileFinalizer } from "./finalizer";
import { reconcileLifecycle } from "./lifecycle";
import { capacityRequeue, reconcileRender } from "./render";
import { announceDraft, reconcileSource, type SourceOutcome } from "./source";
import { stateOutcome } from "./status";

async function getPackageRevision(
  ctx: OperatorContext,
  key: string,
): Promise<PackageRevision | undefined> {
  return ctx.cluster.get(PackageRevisionKind, splitKey(key));
}

/**
 * One PackageRevision: finalizer (and deletion gating), source (once, rendering what it makes),
 * render (Drafts whose files changed), lifecycle (git follows spec.lifecycle). Each step reads
 * what it needs and returns its outcome; the status states each outcome (status.ts, from
 * lib/package-revision's revisionConditions), and the next step runs on what it wrote.
 */
export async function reconcilePackageRevision(
  key: string,
  ctx: OperatorContext,
): Promise<ReconcileResult | void> {
  const pr = await getPackageRevision(ctx, key);
  if (!pr) return;
  try {
    return await reconcileSteps(ctx, pr);
  } catch (error) {
    // No retry can fix it (the queue does not retry it), or a git server is down or cut off
    // mid-write (retried with backoff): Ready says so where the tenant looks.
    const failure = failureOutcome(error);
    if (failure) await stateOutcome(ctx, pr, failure);
    throw error;
  }
}

const failed = (reason: string, message: string): RevisionOutcome => ({
  kind: "failed",
  reason,
  message,
});

async function reconcileSteps(
  ctx: OperatorContext,
  pr: PackageRevision,
): Promise<ReconcileResult | void> {
  const finalizer = await reconcileFinalizer(ctx, pr);
  if (finalizer.kind === "deleting") return void (await stateOutcome(ctx, pr, finalizer.outcome));
  if (!pr.spec?.lifecycle) return;
  const repo = await ctx.stores.named(pr.metadata?.namespace ?? "", pr.spec.repository ?? "");
  if (!repo) {
    const message = `repository "${pr.spec.repository}" not found or being deleted`;
    return void (await stateOutcome(ctx, pr, failed("Failed", message)));
  }
  const recorded = recordedRepositoryUid(pr);
  if (recorded && recorded !== repo.repo.metadata?.uid) {
    const message = `made under an earlier Repository "${pr.spec.repository}" (UID ${recorded}); this one was re-created since (UID ${repo.repo.metadata?.uid}) and is not changed through this object: delete it, and the Repository's sync mirrors what git has`;
    return void (await stateOutcome(ctx, pr, failed("RepositoryReplaced", message)));
  }
  const source = await reconcileSource(ctx, pr, repo.repo, repo.store);
  try {
    return await afterSource(ctx, pr, repo.store, source);
  } finally {
    // This writer was counted on by a batch waiting for its repository's writers (source.ts):
    // once its outcome is stated (the cache has it), the batch asks again whether to wait.
    if (source.kind !== "pushPending" && source.kind !== "none") repo.store.reconsiderPush();
  }
}

async function afterSource(
  ctx: OperatorContext,
  pr: PackageRevision,
  store: ContentStore,
  source: SourceOutcome,
): Promise<ReconcileResult | void> {
  switch (source.kind) {
    case "sourceFailed":
      return void (await stateOutcome(ctx, pr, source));
    case "requeue":
      return { requeueAfterMs: source.requeueAfterMs };
    case "pushPending":
      // Reconciled again when the push settles (pending-writes.ts).
      return;
    case "none": {
      // A render still to come holds the lifecycle back: a publish now would leave its files out.
      const render = await runRender(ctx, pr, store);
      if (render) return render;
      break;
    }
    case "created": {
      // Its source rendered it.
      const stated = await stateOutcome(ctx, pr, source);
      if (stated) await announceDraft(ctx, pr, stated, source);
      // Rendered later, when shared capacity may be free; the lifecycle waits for it.
      const retry = capacityRequeue(ctx, pr, source.verdict);
      if (retry) return retry;
      break;
    }
    default: {
      const unknown: never = source;
      throw new Error(`unknown source outcome ${JSON.stringify(unknown)}`);
    }
  }
  return (await runLifecycle(ctx, pr, store)) ?? (await reconcileApprovalPolicy(ctx, pr));
}

/** The render step, stated; a result when the reconcile is to come back instead of going on. */
export async function runRender(
  ctx: OperatorContext,
  pr: PackageRevision,
  store: ContentStore,
): Promise<ReconcileResult | void> {
  const render = await reconcileRender(ctx, pr, store);
  if (render.kind === "requeue") return { requeueAfterMs: render.requeueAfterMs };
  await stateOutcome(ctx, pr, render);
  if (render.kind === "rendered") return capacityRequeue(ctx, pr, render.verdict);
}

/**
 * The lifecycle step, stated; a publish then moves the package's latest-revision labels. A move
 * handed to its push ends the reconcile (the approval policy looks once the move is stated).
 */
export async function runLifecycle(
  ctx: OperatorContext,
  pr: PackageRevision,
  store: ContentStore,
): Promise<ReconcileResult | void> {
  const lifecycle = await reconcileLifecycle(ctx, pr, store);
  // Reconciled again when the push settles (pending-writes.ts).
  if (lifecycle.kind === "movePending") return {};
  try {
    if (lifecycle.kind === "requeue") return { requeueAfterMs: lifecycle.requeueAfterMs };
    await stateOutcome(ctx, pr, lifecycle);
    if (lifecycle.kind === "inGit" && lifecycle.fields.revision > 0)
      await refreshLatestLabels(ctx, pr);
  } finally {
    // A move on its way was counted on by a batch waiting for the repository's writers
    // (writers.ts): once stated (the cache has it), the batch asks again whether to wait.
    store.reconsiderPush();
  }
}
