// Configuration injection between its phases: which in-cluster objects to read. Only the first
// existing candidate of each point is used (injection.ts, select), so the candidates are read in
// injector order and the walk stops there: a variant with 100 injectors whose first object exists
// reads one object per point, not 100, and keeps none it does not inject.
import { mapLimit } from "../controller/concurrency";
import type { FetchedObjects, FetchOutcome } from "./injection";
import {
  inClusterKey,
  injectionCandidates,
  type InClusterRef,
  type InjectionPoint,
  type Injector,
} from "./injection-points";

/** Points whose candidates are walked at once (each walk itself reads one object at a time). */
export const POINTS_AT_ONCE = 4;

/**
 * The outcomes `select` reads: per point, candidates in injector order up to the first found or
 * failed one. An object several points name is read once.
 */
export async function fetchInjected(
  points: readonly InjectionPoint[],
  injectors: readonly Injector[] | undefined,
  namespace: string,
  fetchOne: (ref: InClusterRef) => Promise<FetchOutcome>,
): Promise<FetchedObjects> {
  const reads = new Map<string, Promise<FetchOutcome>>();
  const fetched = new Map<string, FetchOutcome>();
  await mapLimit(points, POINTS_AT_ONCE, async point => {
    for (const ref of injectionCandidates(point, injectors ?? [], namespace)) {
      const key = inClusterKey(ref);
      let read = reads.get(key);
      if (!read) reads.set(key, (read = fetchOne(ref)));
      const outcome = await read;
      fetched.set(key, outcome);
      if (outcome.status !== "notFound") return;
    }
  });
  return fetched;
}
