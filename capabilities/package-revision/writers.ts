// The writers of a repository on their way, and the writes handed in meanwhile: a busy
// repository's push waits for its writers (push-batch.ts, Linger), and a writer that would only
// wait for that push in a worker hands it in instead (pending-writes.ts).
import type { PackageRevision } from "../../crd-types";
import type { Lifecycle } from "../../lib/package-revision";
import type { OperatorContext } from "../context";
import { draftsAwaitingSource, movesAwaiting } from "../shared/revision-cache";
import { MOVE_BOUNDS, PendingWrites } from "./pending-writes";
import type { RenderedSource } from "./rendered-source";

/** What a handed-in move is for: its landing is used only for the same spec it was made from. */
export interface PlannedMove {
  generation: number | undefined;
  lifecycle: Lifecycle;
}

interface Registries {
  drafts: PendingWrites<RenderedSource>;
  moves: PendingWrites<PlannedMove>;
}

const registries = new WeakMap<OperatorContext, Registries>();

/** The context's handed-in writes (one pair per operator process, per unit test's context). */
function registriesOf(ctx: OperatorContext): Registries {
  let found = registries.get(ctx);
  if (found === undefined) {
    found = { drafts: new PendingWrites(), moves: new PendingWrites(MOVE_BOUNDS) };
    registries.set(ctx, found);
  }
  return found;
}

/** New drafts whose branch is handed to their repository's next push (source.ts). */
export const pendingDraftsOf = (ctx: OperatorContext) => registriesOf(ctx).drafts;

/** Lifecycle moves handed to their repository's next push (lifecycle.ts). */
export const pendingMovesOf = (ctx: OperatorContext) => registriesOf(ctx).moves;

/** The revision's repository as the registries key it: "namespace/name". */
export const repositoryOf = (pr: PackageRevision) =>
  `${pr.metadata?.namespace ?? ""}/${pr.spec?.repository ?? ""}`;

/**
 * Whether writers of a repository other than those handed in are on their way: revisions whose
 * source or move is still to run (queued, rendering) beyond `besides` of them. While there
 * are, the repository's push waits for them (push-batch.ts, Linger), and a write is handed in.
 */
export function writersComing(
  ctx: OperatorContext,
  namespace: string,
  repository: string,
  besides = 0,
): boolean {
  const { cache } = ctx.caches.revisions;
  const awaiting =
    draftsAwaitingSource(cache, namespace, repository) +
    movesAwaiting(cache, namespace, repository);
  const key = `${namespace}/${repository}`;
  const { drafts, moves } = registriesOf(ctx);
  return awaiting - drafts.handedIn(key) - moves.handedIn(key) - besides > 0;
}

/**
 * Whether a batch of the repository's push waits for more writers (push-batch.ts, Linger):
 * while writers are on their way, and none waits for the push in a worker (those it would keep,
 * and the writers on their way may be queued behind them).
 */
export function batchWaits(ctx: OperatorContext, namespace: string, repository: string): boolean {
  const key = `${namespace}/${repository}`;
  const { drafts, moves } = registriesOf(ctx);
  if (drafts.awaited(key) + moves.awaited(key) > 0) return false;
  return writersComing(ctx, namespace, repository);
}

/**
 * Whether `pr`'s write (costing `cost` in `registry`) is handed in rather than awaited: other
 * writers of its repository are on their way (besides `pr`, when it is counted among them), no
 * other namespace has work, and the registry has room. Handed in only while no other namespace
 * has work: a write that does not wait for its push frees its worker for the next, so a
 * tenant's burst runs as fast as the CPU allows, and another tenant's drafts waited four to six
 * times longer (the noisy-neighbour campaign).
 */
export function mayHandIn<H>(
  ctx: OperatorContext,
  pr: PackageRevision,
  registry: PendingWrites<H>,
  cost: number,
  counted = true,
): boolean {
  const namespace = pr.metadata?.namespace ?? "";
  return (
    writersComing(ctx, namespace, pr.spec?.repository ?? "", counted ? 1 : 0) &&
    !ctx.stores.othersActive?.(namespace) &&
    registry.hasRoom(repositoryOf(pr), cost)
  );
}
