import type { OperatorContext } from "../context";
import { PackageRevision, PackageRevisionKind } from "../../crd-types";
import { refOf } from "../../lib/cluster/port";
import {
  ContentStore,
  isGitStoreError,
  isTransientGitError,
  PackageRevisionInfo,
  lockOf,
} from "../../lib/git";
import {
  alreadyStated,
  transitionProblem,
  unmetReadinessGates,
  type Lifecycle,
  type RevisionOutcome,
} from "../../lib/package-revision";
import { recordOf } from "../../lib/packages/approval-record";
import { errorMessage } from "../../lib/errors";
import { keyOf } from "../../lib/controller/manager";
import { awaitsMove } from "../shared/revision-cache";
import { gitKey } from "../shared/git-key";
import type { Landing } from "./pending-writes";
import { condition } from "./status";
import { mayHandIn, pendingMovesOf, repositoryOf, type PlannedMove } from "./writers";

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

/** Back soon after skipping a stale copy, should the newer object's event not come. */
const STALE_COPY_REQUEUE_MS = 1000;

/**
 * Whether the API server's object is still the version `pr` is a copy of. A move in git is not
 * undone by the next reconcile as a status write is (undoing it is another move, and a publish
 * is never undone), so it is not made from a copy older than the object: a watch cache lags by
 * an event, a reconcile that rendered for seconds holds the copy it started with, and two
 * controller processes overlap while a Deployment rolls. The newer version's own event
 * reconciles it. One GET per move; moves are few.
 */
async function asksStill(ctx: OperatorContext, pr: PackageRevision): Promise<boolean> {
  const now = await ctx.api.get(PackageRevisionKind, refOf(pr));
  return now !== undefined && now.metadata?.generation === pr.metadata?.generation;
}

const fail = (message: string) => ({ kind: "failed", reason: "Failed", message }) as const;

/** What the lifecycle step did: where git holds the revision, why it cannot move, or wait. */
export type LifecycleOutcome =
  | Extract<RevisionOutcome, { kind: "unchanged" | "failed" | "inGit" }>
  | { kind: "requeue"; requeueAfterMs: number }
  /**
   * The move is handed to its repository's next push, which waits for the repository's other
   * writers: the revision is reconciled again when the push settles (pending-writes.ts).
   */
  | { kind: "movePending" };

/**
 * A move that failed in git: a server down or cut off mid-push is retried (thrown; reconcile.ts
 * says why on Ready), a refusal (GitStoreError) is the revision's failure.
 */
function moveFailure(error: unknown): LifecycleOutcome {
  if (!isGitStoreError(error) || isTransientGitError(error)) throw error;
  return fail(errorMessage(error));
}

/**
 * The revision's handed-in move: pending (whatever the spec says now: no move is planned beside
 * one in flight; the settle brings the revision back), or settled and made for this generation
 * and lifecycle. One made for an earlier spec is dropped: the move is planned again from git.
 */
function handedInMove(
  ctx: OperatorContext,
  pr: PackageRevision,
  wanted: Lifecycle,
): Landing<PlannedMove> | undefined {
  const landing = pendingMovesOf(ctx).take(keyOf(pr), pr.metadata?.uid ?? "");
  if (landing === undefined || landing.state === "pending") return landing;
  const { generation, lifecycle } = landing.held;
  return generation === pr.metadata?.generation && lifecycle === wanted ? landing : undefined;
}

/**
 * Makes the move in git: handed to the repository's next push when other writers of it are on
 * their way (the reconcile ends, movePending), otherwise awaited here.
 */
async function move(
  ctx: OperatorContext,
  pr: PackageRevision,
  store: ContentStore,
  wanted: Lifecycle,
): Promise<PackageRevisionInfo | LifecycleOutcome> {
  const registry = pendingMovesOf(ctx);
  const update = () =>
    store.updateLifecycle(gitKey(pr), wanted, recordOf(pr.metadata?.annotations));
  // Counted among the repository's writers on their way (revision-cache.ts) unless its status
  // already speaks of this generation (a draft its source just made).
  const counted = awaitsMove(pr);
  if (mayHandIn(ctx, pr, registry, 1, counted)) {
    const held = { generation: pr.metadata?.generation, lifecycle: wanted };
    registry.handIn(keyOf(pr), pr.metadata?.uid ?? "", repositoryOf(pr), held, 1, update());
    return { kind: "movePending" };
  }
  try {
    // Counted, it is subtracted while it pushes: the push does not wait for its own writer.
    return await registry.writing(repositoryOf(pr), update(), counted);
  } catch (error) {
    return moveFailure(error);
  }
}

/**
 * Moves the revision in git to spec.lifecycle (Draft → Proposed → Published, Proposed → Draft,
 * Published ⇄ DeletionProposed). Publishing assigns the next revision number and tag; once it
 * is stated, the latest-revision labels of the package follow (reconcile.ts). When other
 * writers of the repository are on their way, the move goes with theirs and this reconcile
 * does not wait for it (movePending); the next one, once it landed, states it as this one would
 * have. Ready only ever follows the move being in git.
 */
export async function reconcileLifecycle(
  ctx: OperatorContext,
  pr: PackageRevision,
  store: ContentStore,
): Promise<LifecycleOutcome> {
  const wanted = (pr.spec?.lifecycle ?? "Draft") as Lifecycle;
  const handedIn = handedInMove(ctx, pr, wanted);
  if (handedIn?.state === "pending") return { kind: "movePending" };
  if (handedIn?.state === "failed") return moveFailure(handedIn.error);
  let info = handedIn?.state === "landed" ? handedIn.info : await currentInfo(store, pr);
  if (!info) {
    // Its source has not produced content yet (or failed: status says). Once it has, a
    // revision git lacks (its branch deleted there) is said to be missing, at this generation:
    // left unstated, its move would count as on its way for good (revision-cache.ts), and each
    // push of its repository would wait the whole linger for it.
    if (pr.spec?.source && !pr.status?.creationSource) return { kind: "unchanged" };
    return fail(
      `package revision ${pr.spec?.packageName}/${pr.spec?.workspaceName} not found in git`,
    );
  }
  if (info.lifecycle !== wanted) {
    const problem = transitionProblem(info.lifecycle, wanted);
    if (problem) return fail(problem);
    const unmet = wanted === "Published" ? unmetReadinessGates({ ...pr.spec, ...pr.status }) : [];
    if (unmet.length > 0) return fail(`readiness gates not met: ${unmet.join(", ")}`);
    if (!(await asksStill(ctx, pr)))
      return { kind: "requeue", requeueAfterMs: STALE_COPY_REQUEUE_MS };
    // Who moved what in git, and on which version of the object: the trail an audit follows.
    ctx.log.info(`moving ${pr.metadata?.name} from ${info.lifecycle} to ${wanted} in git`, {
      namespace: pr.metadata?.namespace,
      resourceVersion: pr.metadata?.resourceVersion,
      generation: pr.metadata?.generation,
      commit: info.commit,
    });
    const moved = await move(ctx, pr, store, wanted);
    if ("kind" in moved) return moved;
    info = moved;
  }
  const outcome = {
    kind: "inGit",
    lifecycle: wanted,
    // Files git could not take keep the revision not Ready (render said why) until they change.
    rendered: condition(pr, "Rendered"),
    fields: info.revision > 0 ? publishedFields(store, info) : { revision: info.revision },
  } as const;
  const current = { generation: pr.metadata?.generation, status: pr.status };
  return alreadyStated(current, outcome) ? { kind: "unchanged" } : outcome;
}
