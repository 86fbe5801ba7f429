import { Repository } from "../../crd-types";
import { nextRun, parseCron } from "../../lib/schedule/cron";

/** Without spec.sync.schedule a repository is re-read this often (changes pushed from outside). */
export const DEFAULT_SYNC_INTERVAL_MS = 10 * 60_000;

/** When the next full sync is due: the cron schedule's next minute, or the default interval. */
export function nextSyncTime(repo: Repository, now: Date): Date {
  const schedule = repo.spec?.sync?.schedule;
  return schedule
    ? nextRun(parseCron(schedule), now)
    : new Date(now.getTime() + DEFAULT_SYNC_INTERVAL_MS);
}

/** spec.sync.runOnceAt asks for one sync at that time; due once it has passed and was not done. */
export function runOnceDue(repo: Repository, now: Date): { due: boolean; at?: string } {
  const at = repo.spec?.sync?.runOnceAt;
  if (!at || at === repo.status?.observedRunOnceAt) return { due: false };
  return { due: new Date(at).getTime() <= now.getTime(), at };
}

/**
 * Whether this reconcile must read git. Status writes wake the controller too; without this
 * check every sync would trigger the next one.
 */
export function syncDue(repo: Repository, now: Date): boolean {
  const condition = repo.status?.conditions?.find(c => c.type === "Ready");
  // Refused for its revision count, it waits for its schedule like a ready one: every attempt
  // fetches every ref, and only a change in git (or of the spec) can end the refusal.
  const ready = condition?.status === "True" || condition?.reason === "TooManyRevisions";
  const next = repo.status?.nextFullSyncTime ? new Date(repo.status.nextFullSyncTime).getTime() : 0;
  return (
    !ready ||
    repo.status?.observedGeneration !== repo.metadata?.generation ||
    now.getTime() >= next ||
    runOnceDue(repo, now).due
  );
}
