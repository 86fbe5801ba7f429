// kube-apiserver SIGKILLed and started again (same address, same etcd) while a set fans out:
// every watch of the operator must resume, and every object reach its expected state (Ready
// variant, rendered draft) within a bound, with nothing lost or doubled.
import { conditionOf, paths } from "../../bench/kube";
import { settled } from "../../bench/scenarios/context";
import { fleetSet, variantDrafts } from "../../bench/scenarios/fanout";
import { createFleet, isRendered, type Fleet } from "../../bench/scenarios/fleet";
import { auditFleet } from "../audit";
import type { FaultContext } from "../context";
import type { ApiServerRestartsResult } from "../results";
import type { Scenario } from "../scenario";
import { draftsRendered } from "./fleet-phases";

/** How long after the last restart every object may take to reach its state (reported). */
const BOUND_MS = 600_000;

const renderedCount = (fleet: Fleet) =>
  variantDrafts(fleet, "cloneFrom").filter(pr => isRendered(fleet, pr)).length;

/** Resolves once `count` drafts are rendered (the moment of the next restart). */
const renderedAtLeast = (fleet: Fleet, count: number) =>
  fleet.revisions.until(
    `${count} drafts rendered`,
    () => (renderedCount(fleet) >= count ? true : undefined),
    BOUND_MS,
  );

async function run(ctx: FaultContext, sizes: { cycles: number; variants: number }) {
  const started = performance.now();
  const fleet = await createFleet(ctx, sizes.variants, "faults");
  try {
    await ctx.api.create(paths.pvs(fleet.ns), fleetSet(fleet, 1));
    let lastRestart = performance.now();
    for (let k = 1; k <= sizes.cycles; k++) {
      // Spread over the fan-out: the k-th restart once k/(cycles+1) of the drafts are rendered.
      await renderedAtLeast(fleet, Math.floor((fleet.n * k) / (sizes.cycles + 1)));
      ctx.log(
        `restarting kube-apiserver (${k}/${sizes.cycles}) at ${renderedCount(fleet)} rendered`,
      );
      await ctx.env.controlPlane.restartApiserver();
      lastRestart = performance.now();
    }
    let recoverySeconds = BOUND_MS / 1000;
    try {
      await draftsRendered(fleet, "cloneFrom", BOUND_MS);
      recoverySeconds = Math.round((performance.now() - lastRestart) / 100) / 10;
    } catch (error) {
      ctx.log(error instanceof Error ? error.message : String(error));
    }
    // A variant's draft renders again once its mutations are applied: the moment all N looked
    // rendered can fall between the two, so the audit waits until the operator is quiet.
    await settled(ctx);
    const audit = await auditFleet(ctx, fleet, { openDrafts: true });
    for (const line of audit.details) ctx.log(line);
    const notReady = fleet.variants.values.filter(
      pv => conditionOf(pv, "Ready")?.status !== "True",
    ).length;
    return {
      cycles: sizes.cycles,
      unreconciled:
        audit.lost + audit.duplicates + audit.unrendered + audit.orphanBranches + notReady,
      recoverySeconds,
      boundSeconds: BOUND_MS / 1000,
      seconds: Math.round((performance.now() - started) / 1000),
    } satisfies ApiServerRestartsResult;
  } finally {
    fleet.stop();
  }
}

export const apiServerRestarts: Scenario<"apiServerRestarts"> = {
  run: (ctx, sizes) => run(ctx, sizes.apiServerRestarts),
  zeros: ["unreconciled"],
};
