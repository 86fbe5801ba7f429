import {
  awaitsMove,
  movesAwaiting,
  revisionIndexers,
} from "../../../capabilities/shared/revision-cache";
import type { PackageRevision } from "../../../crd-types";
import { WatchCache } from "../../../lib/controller/watch-cache";
import type { Condition } from "../../../lib/kubernetes/conditions";

// Issue 29: a busy repository's push waits for its writers on their way, and a lifecycle move
// still to run is one. One failing at its generation is not (it would hold every push of its
// repository for the whole linger), nor one whose status already says git holds it.
const inGit = (lifecycle: string, generation: number): Condition => ({
  type: "Ready",
  status: "True",
  reason: "Ready",
  message: `${lifecycle} in git`,
  lastTransitionTime: "2026-01-01T00:00:00Z",
  observedGeneration: generation,
});

const failedAt = (generation: number): Condition => ({
  ...inGit("Draft", generation),
  status: "False",
  reason: "Failed",
  message: "readiness gates not met: approved",
});

/** Revision `name` of repository "repo" at `generation`, asking for `lifecycle`. */
function revision(
  name: string,
  lifecycle: string,
  generation: number,
  ready?: Condition,
): PackageRevision {
  return {
    metadata: { name, namespace: "ns", uid: name, generation, resourceVersion: "1" },
    spec: { repository: "repo", packageName: name, workspaceName: "v1", lifecycle },
    status: { creationSource: "init", ...(ready && { conditions: [ready] }) },
  } as PackageRevision;
}

it("counts a revision asked to move that its status does not say git holds yet", () => {
  // Proposed asked at generation 2; the status speaks of the draft at generation 1.
  expect(awaitsMove(revision("a", "Proposed", 2, inGit("Draft", 1)))).toBe(true);
  // Asked again after a failure at an earlier generation: what git holds is not known.
  expect(awaitsMove(revision("a", "Published", 3, failedAt(2)))).toBe(true);
  // No status yet (a revision of git the Repository's sync mirrored, say).
  expect(awaitsMove(revision("a", "Proposed", 1))).toBe(true);
});

it("does not count a revision whose move is done, failed at its generation, or not its to make", () => {
  expect(awaitsMove(revision("a", "Proposed", 2, inGit("Proposed", 2)))).toBe(false);
  // Readiness gates unmet, an invalid move, git refusing it, a server down: stated at this
  // generation, and waiting for a change or a retry.
  expect(awaitsMove(revision("a", "Published", 3, failedAt(3)))).toBe(false);
  // Another change of the spec (its gates, say): git already holds the lifecycle it asks for.
  expect(awaitsMove(revision("a", "Published", 4, inGit("Published", 3)))).toBe(false);
  const draft = revision("a", "Proposed", 1);
  // A new draft's first write is its source's, counted as such.
  expect(awaitsMove({ ...draft, spec: { ...draft.spec, source: { init: {} } }, status: {} })).toBe(
    false,
  );
  expect(
    awaitsMove({
      ...draft,
      metadata: { ...draft.metadata, deletionTimestamp: new Date("2026-01-01") },
    }),
  ).toBe(false);
  expect(awaitsMove({ ...draft, spec: { ...draft.spec, lifecycle: undefined } })).toBe(false);
});

it("counts a repository's moves on their way, and stops counting one once it is stated", () => {
  const cache = new WatchCache(revisionIndexers);
  cache.upsert(revision("a", "Published", 2, inGit("Proposed", 1)));
  cache.upsert(revision("b", "Published", 2, inGit("Proposed", 1)));
  const elsewhere = revision("c", "Proposed", 2, inGit("Draft", 1));
  cache.upsert({ ...elsewhere, spec: { ...elsewhere.spec, repository: "other" } });
  expect(movesAwaiting(cache, "ns", "repo")).toBe(2);

  const failed = revision("a", "Published", 2, failedAt(2));
  cache.upsert({ ...failed, metadata: { ...failed.metadata, resourceVersion: "2" } });
  expect(movesAwaiting(cache, "ns", "repo")).toBe(1);
});
