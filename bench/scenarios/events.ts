// Event cost: what one small change costs once the fleet is settled. Each window runs from the
// change until the operator is quiet again; an idle window of the same kind shows the noise.
import { paths } from "../kube";
import { measure, settled, type BenchContext, type Cost } from "./context";
import { BLUEPRINTS, UNRELATED_PACKAGE, type Fleet } from "./fleet";

export interface EventCosts {
  /** Nothing changed: background activity over a comparable window. */
  idle: Cost;
  /** A label no template reads added to one deployment Repository. */
  repositoryRelabelled: Cost;
  /** An annotation added to a published revision no PackageVariant uses. */
  unrelatedRevisionUpdated: Cost;
}

const IDLE_MS = 5000;

export async function eventCosts(ctx: BenchContext, fleet: Fleet): Promise<EventCosts> {
  await settled(ctx);
  const touched = () => ({ "bench/touched": String(Date.now()) });
  const idle = await measure(ctx, () => new Promise(r => setTimeout(r, IDLE_MS)));
  const repositoryRelabelled = await measure(ctx, async () => {
    await ctx.api.mergePatch(paths.repo(fleet.ns), fleet.repos[0], {
      metadata: { labels: { "bench-touched": String(Date.now()) } },
    });
    return settled(ctx);
  });
  const unrelatedRevisionUpdated = await measure(ctx, async () => {
    await ctx.api.mergePatch(paths.pr(fleet.ns), `${BLUEPRINTS}.${UNRELATED_PACKAGE}.v1`, {
      metadata: { annotations: touched() },
    });
    return settled(ctx);
  });
  return {
    idle: idle.cost,
    repositoryRelabelled: repositoryRelabelled.cost,
    unrelatedRevisionUpdated: unrelatedRevisionUpdated.cost,
  };
}
