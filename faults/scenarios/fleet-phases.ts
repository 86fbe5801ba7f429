// The fleet's life as the fault scenarios drive it, each phase waiting on its outcome from the
// API: fan-out (one PackageVariantSet, N variants, N rendered clone drafts), publish, upstream
// v2, upgrade (N rendered upgrade drafts), and deleting the set.
import { conditionOf, paths } from "../../bench/kube";
import {
  allowanceMs,
  countWhere,
  fleetSet,
  SET_NAME,
  variantDrafts,
} from "../../bench/scenarios/fanout";
import { isRendered, type Fleet } from "../../bench/scenarios/fleet";
import { moveAll, publishUpstreamV2 } from "../../bench/scenarios/upgrade";
import type { FaultContext } from "../context";

const ready = (fleet: Fleet) =>
  fleet.variants.values.filter(pv => conditionOf(pv, "Ready")?.status === "True").length;

/** Resolves once N upgrade or clone drafts exist and are rendered, and N variants are Ready. */
export async function draftsRendered(
  fleet: Fleet,
  source: "cloneFrom" | "upgrade",
  allowance = allowanceMs(fleet.n),
): Promise<void> {
  const drafts = () => variantDrafts(fleet, source);
  await fleet.revisions.until(
    `${fleet.n} ${source} drafts rendered`,
    () => countWhere(drafts(), fleet.n, pr => isRendered(fleet, pr)),
    allowance,
    () => `${drafts().filter(pr => isRendered(fleet, pr)).length}/${fleet.n} rendered`,
  );
  await fleet.variants.until(
    `${fleet.n} PackageVariants Ready`,
    () => (ready(fleet) >= fleet.n ? true : undefined),
    allowance,
    () => `${ready(fleet)}/${fleet.n} Ready`,
  );
}

export async function fanOut(ctx: FaultContext, fleet: Fleet): Promise<void> {
  await ctx.api.create(paths.pvs(fleet.ns), fleetSet(fleet, 1));
  await draftsRendered(fleet, "cloneFrom");
}

export async function publishAll(ctx: FaultContext, fleet: Fleet): Promise<void> {
  const names = variantDrafts(fleet, "cloneFrom").map(pr => pr.metadata.name);
  await moveAll(ctx, fleet, names, "Proposed");
  await moveAll(ctx, fleet, names, "Published");
}

/** Publishes upstream v2 in git and has the blueprint repository mirror it. */
export const publishUpstream = (ctx: FaultContext, fleet: Fleet) => publishUpstreamV2(ctx, fleet);

/** Moves the set to upstream v2: every variant makes an upgrade draft (a three-way merge). */
export async function upgradeAll(ctx: FaultContext, fleet: Fleet): Promise<void> {
  await ctx.api.mergePatch(paths.pvs(fleet.ns), SET_NAME, { spec: { upstream: { revision: 2 } } });
  await draftsRendered(fleet, "upgrade");
}

/** Deletes the set; resolves with the PackageVariants still there after `boundMs` (0: all gone). */
export async function deleteSet(ctx: FaultContext, fleet: Fleet, boundMs: number): Promise<number> {
  await ctx.api.send("DELETE", `${paths.pvs(fleet.ns)}/${SET_NAME}`);
  try {
    await fleet.variants.until(
      "every PackageVariant deleted",
      () => (fleet.variants.items.size === 0 ? true : undefined),
      boundMs,
      () => `${fleet.variants.items.size} left`,
    );
    return 0;
  } catch {
    return fleet.variants.items.size;
  }
}
