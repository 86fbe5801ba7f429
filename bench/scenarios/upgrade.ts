// Upgrade propagation. The fleet's clone drafts are first published (Proposed, then Published:
// timed, reported as "publish"); every deployment repository then runs a full sync (timed,
// reported as "sync", see syncDeployments); then the upstream publishes v2 and the set's
// upstream is bumped to it. Every PackageVariant then has a published downstream on v1, so the controller
// creates an upgrade draft for each (spec.source.upgrade: a three-way merge of v1, v2 and the
// published downstream), which is what is timed until all N are rendered.
import { mapLimit } from "../../lib/controller/concurrency";
import { conditionOf, paths, type KubeObject } from "../kube";
import { measure, seconds, settled, type BenchContext } from "./context";
import {
  allRendered,
  allowanceMs,
  countWhere,
  milestones,
  progressSeries,
  SET_NAME,
  variantDrafts,
  type StepResult,
} from "./fanout";
import {
  BLUEPRINTS,
  isRendered,
  publishBlueprints,
  UPSTREAM_PACKAGE,
  upstreamPackage,
  type Fleet,
} from "./fleet";

/** Patches the bench sends at once (the same bound the set controller uses for its writes). */
const PATCH_CONCURRENCY = 16;

/** Ready=True saying git has the revision at `lifecycle`, for its current spec. */
export const inGit = (lifecycle: string) => (pr: KubeObject | undefined) => {
  const ready = conditionOf(pr, "Ready");
  return (
    ready?.status === "True" &&
    ready.message === `${lifecycle} in git` &&
    ready.observedGeneration === pr?.metadata.generation
  );
};

/** Moves every named revision to `lifecycle` and waits until git has it; returns the seconds. */
export async function moveAll(
  ctx: BenchContext,
  fleet: Fleet,
  names: string[],
  lifecycle: "Proposed" | "Published",
): Promise<number> {
  const start = performance.now();
  await mapLimit(names, PATCH_CONCURRENCY, name =>
    ctx.api.mergePatch(paths.pr(fleet.ns), name, { spec: { lifecycle } }),
  );
  const done = inGit(lifecycle);
  const count = () => names.filter(name => done(fleet.revisions.items.get(name))).length;
  const reached = await fleet.revisions.until(
    `N revisions ${lifecycle}`,
    () => (count() >= names.length ? true : undefined),
    allowanceMs(names.length),
    () => `${count()}/${names.length} ${lifecycle}`,
  );
  return seconds(reached.at - start);
}

/** Proposes, then publishes every clone draft of the fleet, as a reviewer would. */
export async function publishDrafts(ctx: BenchContext, fleet: Fleet): Promise<StepResult> {
  const names = variantDrafts(fleet, "cloneFrom").map(pr => pr.metadata.name);
  if (names.length !== fleet.n)
    throw new Error(`expected ${fleet.n} drafts, found ${names.length}`);
  const { result, cost } = await measure(ctx, async () => {
    const start = performance.now();
    const proposed = await moveAll(ctx, fleet, names, "Proposed");
    const published = await moveAll(ctx, fleet, names, "Published");
    return { proposed, published, settled: seconds((await settled(ctx)) - start) };
  });
  return { timeline: result, cost };
}

/**
 * Has every deployment repository run a full sync now, timed and reported as "sync": the first
 * sync after the publish mirrors each published package's main-branch revision (N of them).
 * The fleet's deployment repositories have no periodic sync during the bench (fleet.ts): with
 * the default 10 minutes it fell into whichever phase ran then (the publish or the upgrade at
 * N = 1000), and its work was counted there.
 */
export async function syncDeployments(ctx: BenchContext, fleet: Fleet): Promise<StepResult> {
  const { result, cost } = await measure(ctx, async () => {
    const start = performance.now();
    const at = new Date().toISOString();
    await mapLimit(fleet.repos, PATCH_CONCURRENCY, name =>
      ctx.api.mergePatch(paths.repo(fleet.ns), name, { spec: { sync: { runOnceAt: at } } }),
    );
    const done = () =>
      fleet.repos.every(
        name => fleet.repositories.items.get(name)?.status?.observedRunOnceAt === at,
      );
    await fleet.repositories.until(
      "deployment repositories synced",
      () => (done() ? true : undefined),
      allowanceMs(fleet.n),
    );
    const synced = seconds(performance.now() - start);
    return { synced, settled: seconds((await settled(ctx)) - start) };
  });
  return { timeline: result, cost };
}

/** Publishes upstream v2 in git and has the blueprint repository synced (not timed). */
export async function publishUpstreamV2(ctx: BenchContext, fleet: Fleet): Promise<void> {
  await publishBlueprints(ctx, fleet.blueprintsUrl, [upstreamPackage(2)]);
  await ctx.api.mergePatch(paths.repo(fleet.ns), BLUEPRINTS, {
    spec: { sync: { runOnceAt: new Date().toISOString() } },
  });
  const v2 = `${BLUEPRINTS}.${UPSTREAM_PACKAGE}.v2`;
  await fleet.revisions.until(
    "upstream v2 mirrored",
    () => (fleet.revisions.items.get(v2)?.status?.revision === 2 ? true : undefined),
    120_000,
  );
  await settled(ctx);
}

export async function upgrade(ctx: BenchContext, fleet: Fleet): Promise<StepResult> {
  const { n } = fleet;
  const allowance = allowanceMs(n);
  const drafts = () => variantDrafts(fleet, "upgrade");
  let progress: ReturnType<typeof progressSeries> | undefined;
  const { result, cost } = await measure(ctx, async () => {
    const start = performance.now();
    progress = progressSeries(start, {
      drafts: () => drafts().length,
      rendered: () => drafts().filter(pr => isRendered(fleet, pr)).length,
    });
    await ctx.api.mergePatch(paths.pvs(fleet.ns), SET_NAME, {
      spec: { upstream: { revision: 2 } },
    });
    const reached = await milestones(start, {
      drafts: fleet.revisions.until(
        "N upgrade drafts",
        () => countWhere(drafts(), n, () => true),
        allowance,
        () => `${drafts().length}/${n} created`,
      ),
      rendered: allRendered(fleet, drafts, "upgrade drafts"),
    });
    if (!reached.error) reached.timeline.settled = seconds((await settled(ctx)) - start);
    return reached;
  }).finally(() => progress?.stop());
  return { ...result, cost, progress: progress?.samples };
}
