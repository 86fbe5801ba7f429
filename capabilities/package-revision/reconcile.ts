import { PackageRevision, PackageRevisionKind } from "../../crd-types";
import type { ReconcileResult } from "../../lib/controller/work-queue";
import { isPermanentError } from "../../lib/controller/permanent-error";
import { errorMessage } from "../../lib/errors";
import { failureReason, isTransientGitError } from "../../lib/git";
import { recordedRepositoryUid } from "../../lib/packages/deletion";
import type { OperatorContext } from "../context";
import { splitKey } from "../../lib/controller/manager";
import { reconcileApprovalPolicy } from "./approval-policy";
import { reconcileFinalizer } from "./finalizer";
import { reconcileLifecycle } from "./lifecycle";
import { reconcileRender } from "./render";
import { reconcileSource } from "./source";
import { applyCoreStatus } from "./status";

async function getPackageRevision(
  ctx: OperatorContext,
  key: string,
): Promise<PackageRevision | undefined> {
  return ctx.cluster.get(PackageRevisionKind, splitKey(key));
}

/**
 * One PackageRevision: finalizer (and deletion gating), source (once, rendering what it makes),
 * render (Drafts whose files changed), lifecycle (git follows spec.lifecycle). Each step reads
 * what it needs and returns early when it has nothing to do.
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
    // No retry can fix it (the queue does not retry it): say so where the tenant looks.
    if (isPermanentError(error)) {
      const { reason, message } = error;
      await applyCoreStatus(ctx, pr, {}, [{ type: "Ready", status: "False", reason, message }]);
    }
    // A git server down or cut off mid-write: retried with backoff; Ready says so meanwhile
    // (Unavailable, Timeout), and the retry that succeeds states Ready again.
    if (isTransientGitError(error)) {
      const reason = failureReason(error, "Failed");
      const message = errorMessage(error);
      await applyCoreStatus(ctx, pr, {}, [{ type: "Ready", status: "False", reason, message }]);
    }
    throw error;
  }
}

async function reconcileSteps(
  ctx: OperatorContext,
  pr: PackageRevision,
): Promise<ReconcileResult | void> {
  if (await reconcileFinalizer(ctx, pr)) return;
  if (!pr.spec?.lifecycle) return;
  const repo = await ctx.stores.named(pr.metadata?.namespace ?? "", pr.spec.repository ?? "");
  if (!repo) {
    const message = `repository "${pr.spec.repository}" not found or being deleted`;
    return void (await applyCoreStatus(ctx, pr, {}, [
      { type: "Ready", status: "False", reason: "Failed", message },
    ]));
  }
  const recorded = recordedRepositoryUid(pr);
  if (recorded && recorded !== repo.repo.metadata?.uid) {
    const message = `made under an earlier Repository "${pr.spec.repository}" (UID ${recorded}); this one was re-created since (UID ${repo.repo.metadata?.uid}) and is not changed through this object: delete it, and the Repository's sync mirrors what git has`;
    return void (await applyCoreStatus(ctx, pr, {}, [
      { type: "Ready", status: "False", reason: "RepositoryReplaced", message },
    ]));
  }
  const source = await reconcileSource(ctx, pr, repo.repo, repo.store);
  switch (source.kind) {
    case "failed":
      return;
    case "requeue":
      return { requeueAfterMs: source.requeueAfterMs };
    case "none": {
      const render = await reconcileRender(ctx, pr, repo.store);
      // A render still to come holds the lifecycle back: a publish now would leave its files out.
      if (render) return render;
      break;
    }
    case "created":
      break; // its source rendered it
    default: {
      const unknown: never = source;
      throw new Error(`unknown source outcome ${JSON.stringify(unknown)}`);
    }
  }
  return (
    (await reconcileLifecycle(ctx, pr, repo.store)) ?? (await reconcileApprovalPolicy(ctx, pr))
  );
}
