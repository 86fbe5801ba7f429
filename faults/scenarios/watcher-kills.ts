// The controller process SIGKILLed at random moments while a PackageVariantSet fans out to N
// targets, the drafts are published, and all N are upgraded; then the set is deleted. Nothing
// may be lost, doubled, left unrendered, orphaned in git or left with a finalizer.
import { settled } from "../../bench/scenarios/context";
import { createFleet, type Fleet } from "../../bench/scenarios/fleet";
import { auditFleet, fleetRefs } from "../audit";
import type { FaultContext } from "../context";
import { startKiller } from "../killer";
import type { WatcherKillsResult } from "../results";
import type { Scenario } from "../scenario";
import { deleteSet, fanOut, publishAll, publishUpstream, upgradeAll } from "./fleet-phases";

/**
 * Share of the kills each phase gets; kills a phase did not use carry over to the next. The
 * upstream's new revision is written from outside the operator, so nothing is killed then.
 */
const PHASES: [string, number, (ctx: FaultContext, fleet: Fleet) => Promise<void>][] = [
  ["fan-out", 0.5, fanOut],
  ["publish", 0.2, publishAll],
  ["upstream v2", 0, publishUpstream],
  ["upgrade", 0.3, upgradeAll],
];

/** A kill 1–6 s after the restarted watcher is healthy: mid-list, mid-reconcile, mid-push. */
const KILL_WINDOW = { minMs: 1000, maxMs: 6000 };

const DELETE_BOUND_MS = 300_000;

async function run(ctx: FaultContext, sizes: { cycles: number; variants: number }) {
  const started = performance.now();
  const fleet = await createFleet(ctx, sizes.variants, "faults");
  let kills = 0;
  const killsByPhase: Record<string, number> = {};
  let tagsBefore: Map<string, Map<string, string>> | undefined;
  try {
    for (const [i, [name, share, phase]] of PHASES.entries()) {
      const last = i === PHASES.length - 1;
      const quota = last ? sizes.cycles - kills : Math.round(sizes.cycles * share);
      ctx.log(`${name}: ${quota} kills while it runs`);
      const killer = startKiller(ctx, quota, KILL_WINDOW);
      await phase(ctx, fleet);
      // The last phase's kills all happen, even after its work is done; earlier ones carry over.
      if (last) await killer.done;
      await killer.stop();
      kills += killer.kills;
      killsByPhase[name] = killer.kills;
      // The tags the publish made must survive every later kill where they are.
      if (phase === publishAll) tagsBefore = await fleetRefs(fleet);
    }
    ctx.log(`kills by phase: ${JSON.stringify(killsByPhase)}`);
    await settled(ctx);
    const { details, ...counts } = await auditFleet(ctx, fleet, { openDrafts: true, tagsBefore });
    for (const line of details) ctx.log(line);
    ctx.log("deleting the set");
    const left = await deleteSet(ctx, fleet, DELETE_BOUND_MS);
    return {
      cycles: kills,
      killsByPhase,
      ...counts,
      stuckFinalizers: counts.stuckFinalizers + left,
      seconds: Math.round((performance.now() - started) / 1000),
    } satisfies WatcherKillsResult;
  } finally {
    fleet.stop();
  }
}

export const watcherKills: Scenario<"watcherKills"> = {
  run: (ctx, sizes) => run(ctx, sizes.watcherKills),
  zeros: ["duplicates", "orphanBranches", "lost", "unrendered", "missingTags", "stuckFinalizers"],
  check: (result, sizes) => [
    ...(result.cycles === sizes.watcherKills.cycles
      ? []
      : [`${result.cycles} kills of ${sizes.watcherKills.cycles}`]),
    ...(result.variants === sizes.watcherKills.variants
      ? []
      : [`${result.variants} PackageVariants, expected ${sizes.watcherKills.variants}`]),
  ],
};
