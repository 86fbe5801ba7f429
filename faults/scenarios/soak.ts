// Soak: a fleet of ten set-made PackageVariants plus up to six direct ones, churned at a steady
// rate for `minutes` (soak-churn.ts), while the controller process is sampled every 10 s
// (soak-samples.ts). Its RSS and open file descriptors must stay flat after a warm-up, its work
// queues bounded by the objects there are, it must never restart, and once the churn stops and
// the operator settles no object may be left reporting an error.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../hack/cluster/paths";
import { settled } from "../../bench/scenarios/context";
import { fleetSet } from "../../bench/scenarios/fanout";
import { createFleet } from "../../bench/scenarios/fleet";
import { paths } from "../../bench/kube";
import { round } from "../../bench/metrics";
import { sleep, type FaultContext } from "../context";
import { liveHeapMb } from "../live-heap";
import type { SoakResult } from "../results";
import type { Scenario } from "../scenario";
import { seededRandom } from "../prng";
import { slope } from "../soak-stats";
import { draftsRendered } from "./fleet-phases";
import { startChurn } from "./soak-churn";
import { leftoverErrors, queueDepths, sample, type SoakSample } from "./soak-samples";

/**
 * One operation every 5 s. The costliest single-variant operation (a clone or edit draft:
 * git clone, render, push) takes the watcher about 1 CPU-second at its 500m limit (the fan-out
 * README numbers: 1,000 variants in 997 s), and an edit of the set touches ten variants; one
 * every 5 s leaves the watcher idle most of the time on 2 shared cores, so a growing queue or
 * RSS is a leak, not a backlog of work the rate asked for.
 */
const TICK_MS = 5000;
const SAMPLE_MS = 10_000;
/**
 * The first 20% of the churn (6 of the full run's 30 minutes) is discarded from the slopes: the
 * caches (watch caches, git object caches, the JIT's code) fill while every kind of operation
 * happens for the first time, and RSS grows then without leaking.
 */
const WARMUP_SHARE = 0.2;
/**
 * Slopes are judged on runs of 10 minutes or more: over the short run's minute a single GC
 * cycle (tens of MB of heap) is a slope of hundreds of MB/hour.
 */
const JUDGED_FROM_MINUTES = 10;
/**
 * What the watcher retains may grow by at most 20 MB/hour, measured on its live heap (after a full
 * garbage collection, faults/live-heap.ts) before the churn and after it settled: the pod's 512Mi limit
 * leaves ~300 MB above the watcher's steady size, so a day of running may not reach it. RSS is
 * sampled and its slope reported, but not judged by slope: V8 reserves heap pages in steps of
 * tens of MB and returns them late, so one step in a 24-minute window reads as 50 MB/hour
 * while nothing leaks (the 10-minute checks saw exactly that). RSS is judged by its peak
 * instead, against 60% of the pod's limit.
 */
export const LIVE_HEAP_SLOPE_BOUND_MB_PER_HOUR = 20;
/** 60% of the 512Mi limit, in MiB like the samples (VmRSS / 1024). */
export const RSS_PEAK_BOUND_MB = Math.round(512 * 0.6);
/**
 * File descriptors: the smallest leak to catch is one per ten operations (72/hour); the count
 * moves ±5 around its level (git's pipes, keep-alive sockets), which over the 10-minute check
 * made slopes of ±21/hour. Half the leak to catch is the bound.
 */
export const FD_SLOPE_BOUND_PER_HOUR = 36;
/**
 * Queue depth: a key is at most once queued (or running) and once delayed, and keys are the
 * objects of the controller's kind, so the depth over all controllers stays under 2 × objects
 * plus the keys still running for objects just deleted (the queues' concurrency: 4 + 4 + 4 + 8).
 */
const QUEUE_SLACK = 20;
const queueBound = (objects: number) => 2 * objects + QUEUE_SLACK;
/** Where the samples are written (.local/faults/soak/ is replaced by the kept logs). */
const SERIES_DIR = join(repoRoot, ".local", "faults");
/** The PRNG's seed (PORCH_PEPR_SOAK_SEED overrides it): a run's choices are reproducible. */
const SEED = Number(process.env.PORCH_PEPR_SOAK_SEED ?? 16);

/** The watcher's live heap now, in MB (after a full garbage collection). */
async function liveHeap(ctx: FaultContext): Promise<number> {
  const pid = ctx.pidOf("watcher");
  if (pid === undefined) throw new Error("no watcher to measure");
  const mb = await liveHeapMb(pid, ctx.env.module.watcher.logFile);
  ctx.log(`watcher live heap ${mb} MB`);
  return mb;
}

const hourly = (samples: SoakSample[], y: (s: SoakSample) => number) =>
  round(slope(samples.map(s => ({ x: s.t / 3600, y: y(s) }))), 1);

async function run(ctx: FaultContext, sizes: { minutes: number }): Promise<SoakResult> {
  const started = performance.now();
  const fleet = await createFleet(ctx, 10, "soak");
  try {
    await ctx.api.create(paths.pvs(fleet.ns), fleetSet(fleet, 1));
    await draftsRendered(fleet, "cloneFrom");
    await settled(ctx);
    const liveHeapStart = await liveHeap(ctx);
    const firstPid = ctx.pidOf("watcher");
    const churn = startChurn(ctx, fleet, seededRandom(SEED));
    const operations: Record<string, number> = {};
    const samples: SoakSample[] = [];
    const t0 = performance.now();
    const durationMs = sizes.minutes * 60_000;
    const t = () => (performance.now() - t0) / 1000;
    const take = async () => {
      samples.push(await sample(ctx, fleet, t()));
    };
    await take();
    let sampling = Promise.resolve();
    const sampler = setInterval(() => (sampling = sampling.then(take)), SAMPLE_MS);
    let ticks = 0;
    let overruns = 0;
    try {
      for (; ticks * TICK_MS < durationMs; ticks++) {
        const due = ticks * TICK_MS - (performance.now() - t0);
        if (due > 0) await sleep(due);
        else if (ticks > 0) overruns += 1;
        const done = await churn.step();
        operations[done] = (operations[done] ?? 0) + 1;
        if (ticks % 12 === 0) ctx.log(`${Math.round(t())} s: ${JSON.stringify(operations)}`);
      }
    } finally {
      clearInterval(sampler);
      await sampling;
    }
    await take();
    const reviewed = await churn.endReviews();
    ctx.log(`churn stopped; ${reviewed} proposals published; waiting for the operator to settle`);
    await settled(ctx, 5000);
    const leftovers = await leftoverErrors(ctx, fleet.ns);
    for (const line of leftovers) ctx.log(`left behind: ${line}`);
    const queue = await queueDepths(ctx);
    const liveHeapEnd = await liveHeap(ctx);
    const hours = (performance.now() - t0) / 3_600_000;

    // The series itself, for a reader of the slope (whether RSS levels off or keeps rising).
    mkdirSync(SERIES_DIR, { recursive: true });
    writeFileSync(join(SERIES_DIR, "soak-samples.json"), JSON.stringify(samples));
    const pids = new Set(samples.map(s => s.pid));
    const steady = samples.filter(s => s.t >= (durationMs / 1000) * WARMUP_SHARE);
    const maxObjects = Math.max(...samples.map(s => s.objects));
    const overBound = samples.filter(
      s => s.queueDepth !== undefined && s.queueDepth > queueBound(s.objects),
    );
    for (const s of overBound)
      ctx.log(`queue depth ${s.queueDepth} at ${s.t} s (${s.objects} objects)`);
    const last = samples[samples.length - 1];
    const result: SoakResult = {
      minutes: sizes.minutes,
      rssSlopeMbPerHour: hourly(steady, s => s.rssMb),
      fdSlopePerHour: hourly(steady, s => s.fds),
      leftoverErrors: leftovers.length,
      seconds: Math.round((performance.now() - started) / 1000),
      seed: SEED,
      operationsPerMinute: 60_000 / TICK_MS,
      operations,
      ticks,
      overruns,
      proposalsPublishedAtEnd: reviewed,
      samples: samples.length,
      warmupSeconds: Math.round((durationMs / 1000) * WARMUP_SHARE),
      watcherRestarts: [...pids].filter(p => p !== firstPid).length,
      rssStartMb: round(steady[0]?.rssMb ?? 0, 1),
      rssEndMb: round(last.rssMb, 1),
      rssMaxMb: round(Math.max(...samples.map(s => s.rssMb)), 1),
      fdsStart: steady[0]?.fds ?? 0,
      fdsEnd: last.fds,
      peakQueueDepthSampled: Math.max(0, ...samples.map(s => s.queueDepth ?? 0)),
      peakQueueDepth: queue.peak,
      queueDepthAfterSettling: queue.depth,
      queueDepthBound: queueBound(maxObjects),
      queueOverBound: overBound.length + (queue.peak > queueBound(maxObjects) ? 1 : 0),
      objectsStart: samples[0].objects,
      objectsEnd: last.objects,
      liveHeapStartMb: liveHeapStart,
      liveHeapEndMb: liveHeapEnd,
      liveHeapSlopeMbPerHour: round((liveHeapEnd - liveHeapStart) / hours, 1),
    };
    return result;
  } finally {
    fleet.stop();
  }
}

export const soak: Scenario<"soak"> = {
  run: (ctx, sizes) => run(ctx, sizes.soak),
  zeros: ["leftoverErrors", "watcherRestarts", "queueOverBound"],
  check: result => {
    const broken: string[] = [];
    const scheduled = Math.ceil((result.minutes * 60_000) / TICK_MS);
    if (result.ticks < scheduled) broken.push(`${result.ticks} operations of ${scheduled}`);
    if (result.minutes < JUDGED_FROM_MINUTES) return broken;
    if (Math.abs(result.liveHeapSlopeMbPerHour) > LIVE_HEAP_SLOPE_BOUND_MB_PER_HOUR)
      broken.push(
        `live heap slope ${result.liveHeapSlopeMbPerHour} MB/h, bound ±${LIVE_HEAP_SLOPE_BOUND_MB_PER_HOUR}`,
      );
    if (result.rssMaxMb > RSS_PEAK_BOUND_MB)
      broken.push(`RSS peak ${result.rssMaxMb} MB, bound ${RSS_PEAK_BOUND_MB}`);
    if (Math.abs(result.fdSlopePerHour) > FD_SLOPE_BOUND_PER_HOUR)
      broken.push(`fd slope ${result.fdSlopePerHour}/h, bound ±${FD_SLOPE_BOUND_PER_HOUR}`);
    return broken;
  },
};
