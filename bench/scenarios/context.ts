// What every scenario gets: the environment, the benchmark's API client, and measure(), which
// wraps a step with the cost it caused (requests, reconciles, CPU, RSS; and the watcher Pod's
// memory and restarts when the module runs installed as Pods).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Environment } from "../../hack/environment";
import { PUSH_STARTED, type GitServer } from "../../hack/git-server";
import type { Api } from "../kube";
import type { PodMeter, PodUsage } from "../pods";
import {
  apiRequests,
  diff,
  httpsText,
  ProcessMeter,
  reconcileCounts,
  round,
  sum,
  type Usage,
} from "../metrics";

/** What the scenarios use of an environment: the embedded default or the module as Pods. */
export interface BenchEnvironment {
  /** Its state folder: logs/git-server.log (a line per push), the embedded module's pid files. */
  stateDir: string;
  /** The open git server the fleet's repositories are created on. */
  git: GitServer;
}

export interface BenchContext<E extends BenchEnvironment = BenchEnvironment> {
  env: E;
  /** The watcher's /metrics text, wherever the watcher runs. */
  watcherMetrics(): Promise<string>;
  api: Api;
  /** The control plane's CA (the module's HTTPS endpoints are signed by it). */
  ca: Buffer;
  meter: ProcessMeter;
  /** Scratch folder of this run (git caches of the benchmark's own writers). */
  workDir: string;
  /** The watcher Pod, when the module runs installed (bench/pods.ts). */
  pod?: PodMeter;
}

export interface Cost {
  /** Requests the operator made (the benchmark's own subtracted), "VERB resource" → count. */
  requests: Record<string, number>;
  requestTotal: number;
  /** Reconciles by controller. */
  reconciles: Record<string, number>;
  /** Pushes (receive-pack requests) the git server received. */
  pushes: number;
  usage: Usage;
  /** The watcher Pod's memory and restarts, when the module runs installed. */
  pod?: PodUsage;
}

/** Pushes the environment's git server received so far (its log has a line for each). */
async function pushCount(ctx: BenchContext): Promise<number> {
  const log = await readFile(join(ctx.env.stateDir, "logs", "git-server.log"), "utf8").catch(
    () => "",
  );
  return log.split(PUSH_STARTED).length - 1;
}

export const reconciles = async (ctx: BenchContext) => reconcileCounts(await ctx.watcherMetrics());

/** The embedded module's watcher /metrics (its HTTPS port, signed by the control plane's CA). */
export const embeddedWatcherMetrics = (env: Environment, ca: Buffer) =>
  httpsText(`https://localhost:${env.module.ports.watcher}/metrics`, ca);

export const pidFile = (ctx: Pick<BenchContext, "env">, name: "watcher" | "admission") =>
  join(ctx.env.stateDir, "logs", `module-${name}.pid`);

/** Runs `step` and returns its result with what it cost the operator and the machine. */
export async function measure<T>(
  ctx: BenchContext,
  step: () => Promise<T>,
): Promise<{ result: T; cost: Cost }> {
  const [requestsBefore, reconcilesBefore, pushesBefore] = await Promise.all([
    apiRequests(ctx.api),
    reconciles(ctx),
    pushCount(ctx),
  ]);
  const sentBefore = { ...ctx.api.sent };
  ctx.meter.start();
  await ctx.pod?.start();
  let usage: Usage;
  let pod: PodUsage | undefined;
  let result: T;
  try {
    result = await step();
  } finally {
    usage = ctx.meter.stop();
    pod = await ctx.pod?.stop();
  }
  const [requestsAfter, reconcilesAfter, pushesAfter] = await Promise.all([
    apiRequests(ctx.api),
    reconciles(ctx),
    pushCount(ctx),
  ]);
  const ours = diff(ctx.api.sent, sentBefore);
  const requests = diff(diff(requestsAfter, requestsBefore), ours);
  return {
    result,
    cost: {
      requests,
      requestTotal: sum(requests),
      reconciles: diff(reconcilesAfter, reconcilesBefore),
      pushes: pushesAfter - pushesBefore,
      usage,
      ...(pod && { pod }),
    },
  };
}

/**
 * Resolves (with performance.now() of the last activity) once no reconcile started and the
 * controller process used under 25% of a CPU for `quietMs`: the operator has settled.
 */
export async function settled(
  ctx: BenchContext,
  quietMs = 3000,
  timeoutMs = 1_800_000,
): Promise<number> {
  const started = performance.now();
  const deadline = started + timeoutMs;
  // A controller process that is down (killed by the fault campaign) is not settled.
  const counts = async () => JSON.stringify(await reconciles(ctx).catch(() => null));
  let last = await counts();
  let lastChange = performance.now();
  let cpu = watcherCpu(ctx);
  let nextReport = started + 15_000;
  while (performance.now() < deadline) {
    await new Promise(r => setTimeout(r, 500));
    const now = await counts();
    const cpuNow = watcherCpu(ctx);
    // A reconcile in progress keeps a CPU busy; idle bookkeeping (timers, GC) stays well under 25%.
    if (now !== last || now === "null" || cpuNow - cpu > 0.125) lastChange = performance.now();
    if (performance.now() > nextReport) {
      nextReport += 15_000;
      const busy = Math.round(((cpuNow - cpu) / 0.5) * 100);
      process.stderr.write(`  ... settling: controller ${busy}% of a CPU, reconciles ${now}\n`);
    }
    last = now;
    cpu = cpuNow;
    if (performance.now() - lastChange >= quietMs) return lastChange;
  }
  throw new Error(`the operator did not settle within ${timeoutMs / 1000}s`);
}

function watcherCpu(ctx: BenchContext): number {
  return ctx.meter.cpuSecondsOf("watcher") ?? 0;
}

export const seconds = (ms: number) => round(ms / 1000, 2);
