// Fan-out: one PackageVariantSet with N targets (10 deployment repositories × N/10 package
// names) → N PackageVariants, all Ready, and N clone drafts rendered.
import { conditionOf, paths, type KubeObject } from "../kube";
import { measure, seconds, settled, type BenchContext, type Cost } from "./context";
import { BLUEPRINTS, isRendered, UPSTREAM_PACKAGE, type Fleet } from "./fleet";

export const SET_NAME = "fleet";
const PV_LABEL = "config.porch.kpt.dev/packagevariant";

export interface Timeline {
  /** Seconds from the triggering write to each milestone. */
  [milestone: string]: number;
}

export interface StepResult {
  timeline: Timeline;
  cost: Cost;
  /** Counts every 5 s from the triggering write: throughput over time. */
  progress?: Record<string, number>[];
  /** A milestone not reached in time (the timeline then lacks it). */
  error?: string;
}

/**
 * Waits for every milestone; returns the seconds of those reached and the first failure, so a
 * run cut short by --max-wait-s still reports how far it got.
 */
export async function milestones(
  start: number,
  waits: Record<string, Promise<{ at: number }>>,
): Promise<{ timeline: Timeline; error?: string }> {
  const names = Object.keys(waits);
  const outcomes = await Promise.allSettled(Object.values(waits));
  const timeline: Timeline = {};
  let error: string | undefined;
  outcomes.forEach((o, i) => {
    if (o.status === "fulfilled") timeline[names[i]] = seconds(o.value.at - start);
    else error ??= o.reason instanceof Error ? o.reason.message : String(o.reason);
  });
  return { timeline, error };
}

/** --max-wait-s: a cap on every wait, so a large N reports how far it got. */
export const limits = { maxWaitMs: Number.POSITIVE_INFINITY };

/** Waiting allowance: generous, growing with the fleet (a stuck run still ends). */
export const allowanceMs = (n: number) => Math.min(180_000 + n * 3_000, limits.maxWaitMs);

/** Samples `counts` every 5 s until stopped; each sample has `t`, seconds since `start`. */
export function progressSeries(start: number, counts: Record<string, () => number>) {
  const samples: Record<string, number>[] = [];
  const sample = () =>
    samples.push({
      t: seconds(performance.now() - start),
      ...Object.fromEntries(Object.entries(counts).map(([k, f]) => [k, f()])),
    });
  const timer = setInterval(sample, 5000);
  return {
    samples,
    stop: () => {
      clearInterval(timer);
      sample();
    },
  };
}

export function fleetSet(fleet: Fleet, revision: number) {
  return {
    apiVersion: "config.porch.kpt.dev/v1alpha2",
    kind: "PackageVariantSet",
    metadata: { name: SET_NAME },
    spec: {
      upstream: { repo: BLUEPRINTS, package: UPSTREAM_PACKAGE, revision },
      targets: [
        {
          repositories: fleet.repos.map(name => ({ name, packageNames: fleet.packageNames })),
          template: {
            labels: { bench: "fanout" },
            labelExprs: [{ key: "shard", valueExpr: "repository.labels['shard']" }],
          },
        },
      ],
    },
  };
}

/** Draft PackageRevisions a PackageVariant of the fleet made, optionally of one source kind. */
export const variantDrafts = (fleet: Fleet, source?: "cloneFrom" | "upgrade"): KubeObject[] =>
  fleet.revisions.values.filter(
    pr =>
      pr.metadata.labels?.[PV_LABEL] !== undefined &&
      pr.spec?.lifecycle === "Draft" &&
      (source === undefined ||
        (pr.spec?.source as Record<string, unknown>)?.[source] !== undefined),
  );

export const countWhere = <T>(items: T[], n: number, test: (t: T) => boolean): true | undefined =>
  items.filter(test).length >= n ? true : undefined;

/** Resolves when all N of `drafts()` are rendered (the last milestone of fan-out and upgrade). */
export const allRendered = (fleet: Fleet, drafts: () => KubeObject[], what: string) =>
  fleet.revisions.until(
    `N ${what} rendered`,
    () => countWhere(drafts(), fleet.n, pr => isRendered(fleet, pr)),
    allowanceMs(fleet.n),
    () => `${drafts().filter(pr => isRendered(fleet, pr)).length}/${fleet.n} rendered`,
  );

/** Creates `set` (the plain fleetSet unless given) and times it to N rendered drafts. */
export async function fanOut(
  ctx: BenchContext,
  fleet: Fleet,
  set: KubeObject = fleetSet(fleet, 1),
): Promise<StepResult> {
  const { n } = fleet;
  const allowance = allowanceMs(n);
  const ready = (pv: KubeObject) => conditionOf(pv, "Ready")?.status === "True";
  const drafts = () => variantDrafts(fleet, "cloneFrom");
  let progress: ReturnType<typeof progressSeries> | undefined;
  const { result, cost } = await measure(ctx, async () => {
    const start = performance.now();
    progress = progressSeries(start, {
      variants: () => fleet.variants.items.size,
      ready: () => fleet.variants.values.filter(ready).length,
      drafts: () => drafts().length,
      rendered: () => drafts().filter(pr => isRendered(fleet, pr)).length,
    });
    await ctx.api.create(paths.pvs(fleet.ns), set);
    const reached = await milestones(start, {
      variants: fleet.variants.until(
        "N PackageVariants",
        () => countWhere(fleet.variants.values, n, () => true),
        allowance,
      ),
      ready: fleet.variants.until(
        "N PackageVariants Ready",
        () => countWhere(fleet.variants.values, n, ready),
        allowance,
        () => `${fleet.variants.values.filter(ready).length}/${n} Ready`,
      ),
      rendered: allRendered(fleet, drafts, "drafts"),
    });
    if (!reached.error) reached.timeline.settled = seconds((await settled(ctx)) - start);
    return reached;
  }).finally(() => progress?.stop());
  return { ...result, cost, progress: progress?.samples };
}
