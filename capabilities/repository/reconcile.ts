import { Repository, RepositoryKind } from "../../crd-types";
import type { ReconcileResult } from "../../lib/controller/work-queue";
import { failureReason, GitStoreError, isGitStoreError } from "../../lib/git";
import {
  namespaceMaxRevisions,
  namespaceRevisionsProblem,
} from "../../lib/packages/namespace-revisions";
import { errorMessage } from "../../lib/errors";
import type { OperatorContext } from "../context";
import { splitKey } from "../../lib/controller/manager";
import { listMirrored, mirrorRevisions, type MirrorResult } from "./mirror";
import { nextSyncTime, runOnceDue, syncDue } from "./schedule";
import { writeRepositoryStatus } from "./status";

/** Read once, when the module loads (README “Security model”). */
const NAMESPACE_MAX_REVISIONS = namespaceMaxRevisions(process.env);

async function getRepository(ctx: OperatorContext, key: string): Promise<Repository | undefined> {
  return ctx.cluster.get(RepositoryKind, splitKey(key));
}

/** Milliseconds until the next sync, scheduled or runOnceAt, whichever comes first. */
function untilNext(repo: Repository, next: Date, now: Date): number {
  const runOnce = runOnceDue(repo, now);
  const times = [next.getTime()];
  if (runOnce.at && !runOnce.due) times.push(new Date(runOnce.at).getTime());
  return Math.max(1000, Math.min(...times) - now.getTime());
}

/** Says how many revisions were mirrored without their files, and names the first. */
function syncMessage(revisions: number, result: MirrorResult): string {
  const synced = `synced ${revisions} package revision(s) of ${result.packages} package(s)`;
  const [first] = result.refused;
  if (first === undefined) return synced;
  return `${synced}; ${result.refused.length} mirrored without their files, first ${first.name}: ${first.message}`;
}

/**
 * One Repository: connect, fetch, discover packages and revisions, mirror them as
 * PackageRevision objects, write the status, and come back when the next sync is due. A
 * failure (unreachable URL, wrong credentials, missing branch) is Ready=False with the reason
 * (Timeout for a server that does not answer in time, Unavailable for one that cannot be reached,
 * cuts the connection or answers 502/503/504, URLNotAllowed for a refused URL) and
 * touches neither git nor any object; the queue retries with backoff. More package revisions
 * than PORCH_PEPR_REPOSITORY_MAX_REVISIONS, or more than PORCH_PEPR_NAMESPACE_MAX_REVISIONS with
 * the namespace's others, is Ready=False TooManyRevisions: nothing is mirrored
 * or deleted, and git is read again when the next sync is due.
 */
export async function reconcileRepository(
  key: string,
  ctx: OperatorContext,
): Promise<ReconcileResult | void> {
  const repo = await getRepository(ctx, key);
  const { namespace, name } = splitKey(key);
  if (!repo || repo.metadata?.deletionTimestamp) return ctx.stores.forget(namespace, name);
  const now = ctx.now();
  const next = nextSyncTime(repo, now);
  if (!syncDue(repo, now)) {
    return {
      requeueAfterMs: untilNext(repo, new Date(repo.status?.nextFullSyncTime ?? next), now),
    };
  }
  const runOnce = runOnceDue(repo, now);
  try {
    const store = await ctx.stores.of(repo);
    const existing = await listMirrored(ctx, repo);
    const commit = await store.open();
    const revisions = await store.listPackageRevisions();
    const others = (await ctx.caches.revisions.countIn(namespace)) - existing.length;
    const crowded = namespaceRevisionsProblem(revisions.length, others, NAMESPACE_MAX_REVISIONS);
    if (crowded) throw new GitStoreError("TooManyRevisions", crowded);
    const result = await mirrorRevisions(ctx, repo, store, revisions, existing);
    await writeRepositoryStatus(ctx, repo, {
      ready: true,
      reason: "Ready",
      message: syncMessage(revisions.length, result),
      commit,
      packageCount: result.packages,
      syncedAt: now,
      nextSyncAt: next,
      observedRunOnceAt: runOnce.due ? runOnce.at : undefined,
    });
  } catch (error) {
    // Over the revision cap no retry helps until git changes: said once, read again at the
    // next scheduled sync rather than with backoff (each attempt fetches every ref).
    const tooMany = isGitStoreError(error, "TooManyRevisions");
    await writeRepositoryStatus(ctx, repo, {
      ready: false,
      reason: failureReason(error, "Error"),
      message: errorMessage(error),
      ...(tooMany && { nextSyncAt: next }),
    });
    if (!tooMany) throw error;
  }
  return { requeueAfterMs: untilNext(repo, next, now) };
}
