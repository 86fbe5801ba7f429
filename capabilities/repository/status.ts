import { isDeepStrictEqual } from "node:util";
import { Repository, RepositoryKind, RepositoryStatus } from "../../crd-types";
import type { OperatorContext } from "../context";
import { Condition, setCondition } from "../../lib/kubernetes/conditions";

export interface SyncReport {
  ready: boolean;
  /**
   * "Ready", or why not: "Error", "Timeout", "Unavailable", "URLNotAllowed", "TooManyRevisions",
   * "ContentTooLarge", "FetchMemoryBusy",
   * "Reconciling".
   */
  reason: string;
  message: string;
  commit?: string;
  packageCount?: number;
  syncedAt?: Date;
  nextSyncAt?: Date;
  observedRunOnceAt?: string;
}

/** Writes the Repository status (merge patch); skipped when nothing changed. */
export async function writeRepositoryStatus(
  ctx: OperatorContext,
  repo: Repository,
  report: SyncReport,
): Promise<void> {
  const previous = repo.status ?? {};
  const conditions = setCondition(
    previous.conditions as Condition[] | undefined,
    {
      type: "Ready",
      status: report.ready ? "True" : "False",
      reason: report.reason,
      message: report.message,
    },
    repo.metadata?.generation,
    ctx.now(),
  );
  const status: RepositoryStatus = {
    ...previous,
    conditions: conditions as RepositoryStatus["conditions"],
    observedGeneration: repo.metadata?.generation,
    ...(report.commit !== undefined && { gitCommitHash: report.commit }),
    ...(report.packageCount !== undefined && { packageCount: report.packageCount }),
    ...(report.syncedAt && { lastFullSyncTime: report.syncedAt.toISOString() }),
    ...(report.nextSyncAt && { nextFullSyncTime: report.nextSyncAt.toISOString() }),
    ...(report.observedRunOnceAt && { observedRunOnceAt: report.observedRunOnceAt }),
  };
  if (isDeepStrictEqual(status, repo.status)) return;
  const ref = { namespace: repo.metadata?.namespace, name: repo.metadata?.name ?? "" };
  await ctx.cluster.patch(RepositoryKind, ref, { merge: { status } }, { status: true });
}
