import type { OperatorContext } from "../context";
import { PackageRevision } from "../../crd-types";
import {
  ContentStore,
  isGitStoreError,
  isTransientGitError,
  Lifecycle,
  PackageRevisionInfo,
  lockOf,
} from "../../lib/git";
import { transitionProblem, unmetReadinessGates } from "../../lib/packages/lifecycle";
import { readyInGit } from "../../lib/packages/content-readiness";
import { errorMessage } from "../../lib/errors";
import { refreshLatestLabels } from "../shared/latest-revision-labels";
import { gitKey } from "../shared/git-key";
import { applyCoreStatus, condition } from "./status";

/** The revision git holds for this object, ranked as the store ranks it everywhere. */
function currentInfo(
  store: ContentStore,
  pr: PackageRevision,
): Promise<PackageRevisionInfo | undefined> {
  return store.findRevision(gitKey(pr));
}

function publishedFields(store: ContentStore, info: PackageRevisionInfo) {
  return {
    revision: info.revision,
    selfLock: lockOf(store.config.url, info),
    ...(info.publishedAt && { publishedAt: info.publishedAt }),
    ...(info.publishedBy && { publishedBy: info.publishedBy }),
  };
}

const fail = (ctx: OperatorContext, pr: PackageRevision, message: string) =>
  applyCoreStatus(ctx, pr, {}, [{ type: "Ready", status: "False", reason: "Failed", message }]);

/**
 * Moves the revision in git to spec.lifecycle (Draft → Proposed → Published, Proposed → Draft,
 * Published ⇄ DeletionProposed). Publishing assigns the next revision number and tag; the
 * latest-revision labels of the package follow.
 */
export async function reconcileLifecycle(
  ctx: OperatorContext,
  pr: PackageRevision,
  store: ContentStore,
): Promise<void> {
  const wanted = (pr.spec?.lifecycle ?? "Draft") as Lifecycle;
  let info = await currentInfo(store, pr);
  if (!info) {
    if (pr.spec?.source) return; // its source has not produced content yet (or failed: status says)
    return void (await fail(
      ctx,
      pr,
      `package revision ${pr.spec?.packageName}/${pr.spec?.workspaceName} not found in git`,
    ));
  }
  if (info.lifecycle !== wanted) {
    const problem = transitionProblem(info.lifecycle, wanted);
    if (problem) return void (await fail(ctx, pr, problem));
    const unmet = wanted === "Published" ? unmetReadinessGates({ ...pr.spec, ...pr.status }) : [];
    if (unmet.length > 0)
      return void (await fail(ctx, pr, `readiness gates not met: ${unmet.join(", ")}`));
    try {
      info = await store.updateLifecycle(gitKey(pr), wanted);
    } catch (error) {
      // A server that is down or cut the push off: retried (reconcile.ts says why on Ready).
      if (!isGitStoreError(error) || isTransientGitError(error)) throw error;
      return void (await fail(ctx, pr, errorMessage(error)));
    }
  }
  const fields = info.revision > 0 ? publishedFields(store, info) : {};
  // Files git could not take keep the revision not Ready (render said why) until they change.
  const ready = readyInGit(wanted, condition(pr, "Rendered"));
  const current = condition(pr, "Ready");
  const changed =
    info.revision !== pr.status?.revision ||
    current?.status !== ready.status ||
    current?.reason !== ready.reason ||
    pr.status?.observedGeneration !== pr.metadata?.generation;
  if (!changed) return;
  await applyCoreStatus(ctx, pr, fields, [ready]);
  if (info.revision > 0) await refreshLatestLabels(ctx, pr);
}
