// Noisy neighbour: one namespace (the victim) creates drafts one after another, first on an idle
// operator (its baseline), then while another namespace runs each attack of issue 26 in turn
// (noisy-attacks.ts). Reported per attack: the victim's p50/p99 time to a Ready draft and its
// ratio to the baseline, the watcher's peak RSS and restarts, and each attacking object's
// conditions at the end, which must name the limit it hit. Every phase is bounded in time and
// each attacker's namespace is deleted before the next attack.
import { round, statusKb } from "../../bench/metrics";
import { paths, type KubeObject } from "../../bench/kube";
import type { FaultContext } from "../context";
import { sleep } from "../context";
import { conditionsLine, limitCondition, p99Ratio, victimLatency } from "../neighbour-stats";
import {
  ATTACKS,
  type AttackName,
  type AttackResult,
  type NoisyNeighbourResult,
  type VictimLatency,
} from "../results";
import type { Scenario } from "../scenario";
import type { NoisyNeighbourSizes } from "../sizes";
import type { StatusCondition } from "../soak-stats";
import { ATTACK_STARTS, type Attack } from "./noisy-attacks";
import { RSS_PEAK_BOUND_MB } from "./soak";
import { createTenant, draft, isReady, removeTenant, type Tenant } from "./tenant";

/** The victim's latency may be at most this many times its idle baseline (p99). */
export const VICTIM_P99_RATIO_BOUND = 3;
const SAMPLE_MS = 250;
const END_POLL_MS = 2000;
/** Attacking objects whose conditions are kept in the results, per attack. */
const KEPT_CONDITIONS = 20;

/** The watcher's RSS every 250 ms, and the processes it ran as (a new pid is a restart). */
class WatcherSampler {
  peakMb = 0;
  readonly pids = new Set<number>();
  /** Each process's high-water mark as last read: a peak between two samples is not missed. */
  readonly highWaterMb = new Map<number, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: FaultContext) {}

  start(): this {
    this.take();
    this.#timer = setInterval(() => this.take(), SAMPLE_MS);
    return this;
  }

  take(): void {
    const pid = this.ctx.pidOf("watcher");
    if (pid === undefined) return;
    this.pids.add(pid);
    try {
      this.peakMb = Math.max(this.peakMb, statusKb(pid, "VmRSS") / 1024);
      this.highWaterMb.set(pid, statusKb(pid, "VmHWM") / 1024);
    } catch {
      // the process exited between reading its pid and its status: the next sample sees the new one
    }
  }

  stop(): void {
    clearInterval(this.#timer);
    this.take();
  }
}

/** The victim's K drafts, one after another: the time from each create to Ready. */
async function victimSeries(
  ctx: FaultContext,
  victim: Tenant,
  label: string,
  sizes: NoisyNeighbourSizes,
): Promise<VictimLatency> {
  const times: number[] = [];
  const creates: number[] = [];
  const boundMs = sizes.victimTimeoutSeconds * 1000;
  for (let i = 0; i < sizes.victimDrafts; i++) {
    const pr = draft(victim, `${label}-${i}`, { init: { description: "the victim's draft" } });
    const started = performance.now();
    await ctx.api.create(paths.pr(victim.ns), pr);
    creates.push(performance.now() - started);
    try {
      const { at } = await victim.revisions.until(
        `victim draft ${pr.metadata.name} Ready`,
        () => (isReady(victim.revisions.items.get(pr.metadata.name)) ? true : undefined),
        boundMs,
      );
      times.push(at - started);
    } catch (error) {
      // The rest would wait on the same operator: they count at the bound without being made.
      ctx.log(error instanceof Error ? error.message : String(error));
      const left = sizes.victimDrafts - i;
      times.push(...Array.from({ length: left }, () => boundMs));
      return victimLatency(times, left, creates);
    }
  }
  return victimLatency(times, 0, creates);
}

const conditionsOf = (obj: KubeObject) => (obj.status?.conditions ?? []) as StatusCondition[];
const namesLimit = (group: KubeObject[]) =>
  group.some(obj => limitCondition(conditionsOf(obj)) !== undefined);

/** Whether every attacking object ended: named its limit, or (a burst) is Ready. */
const ended = (attack: Attack, groups: KubeObject[][]) =>
  groups.length > 0 &&
  groups.every(group => (attack.hitsLimit ? namesLimit(group) : group.every(isReady)));

/** One attack from namespace `ns` while the victim repeats its drafts; then its namespace goes. */
async function underAttack(
  ctx: FaultContext,
  victim: Tenant,
  name: AttackName,
  baseline: VictimLatency,
  sizes: NoisyNeighbourSizes,
): Promise<AttackResult> {
  const started = performance.now();
  const deadline = started + sizes.attackSeconds * 1000;
  const ns = `attacker-${name.toLowerCase()}`;
  const sampler = new WatcherSampler(ctx).start();
  const firstPid = ctx.pidOf("watcher");
  let attack: Attack | undefined;
  let ending: Promise<void> | undefined;
  // The attack's aftermath (its namespace deleted) is measured with it: a watcher that dies
  // while its finalizers are handled restarted because of this attack.
  const end = () =>
    (ending ??= (async () => {
      await attack?.stop().catch(() => undefined);
      await removeTenant(ctx, ns);
      sampler.stop();
    })());
  try {
    ctx.log(`${name}: starting the attack from ${ns}`);
    attack = await ATTACK_STARTS[name](ctx, ns, sizes);
    const latency = await victimSeries(ctx, victim, name.toLowerCase(), sizes);
    ctx.log(
      `${name}: victim p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms (create request p50 ${latency.createP50Ms} ms, p99 ${latency.createP99Ms} ms)`,
    );
    let groups = await attack.objects();
    while (!ended(attack, groups) && performance.now() < deadline) {
      await sleep(END_POLL_MS);
      groups = await attack.objects().catch(() => groups);
    }
    // A burst's Ready drafts say nothing: only those not Ready are recorded, at most 20.
    const told = attack.hitsLimit ? groups : groups.filter(g => !g.every(isReady));
    const conditions = told
      .slice(0, KEPT_CONDITIONS)
      .flatMap(group =>
        group.map(obj => conditionsLine(obj.kind ?? "", obj.metadata.name, conditionsOf(obj))),
      );
    if (told.length > KEPT_CONDITIONS)
      conditions.push(`… and ${told.length - KEPT_CONDITIONS} more`);
    for (const line of conditions) ctx.log(`${name}: ${line}`);
    const ready = attack.hitsLimit ? undefined : groups.filter(g => g.every(isReady)).length;
    await end();
    return {
      ...latency,
      p99Ratio: p99Ratio(latency.p99Ms, baseline),
      watcherPeakRssMb: round(sampler.peakMb, 1),
      restarts: [...sampler.pids].filter(pid => pid !== firstPid).length,
      attackingObjects: groups.length,
      limitNamed: groups.filter(namesLimit).length,
      ...(ready !== undefined && { ready }),
      conditions,
      seconds: Math.round((performance.now() - started) / 1000),
    };
  } finally {
    await end();
  }
}

async function run(ctx: FaultContext, sizes: NoisyNeighbourSizes): Promise<NoisyNeighbourResult> {
  const started = performance.now();
  const victim = await createTenant(ctx, "victim", "victim");
  const sampler = new WatcherSampler(ctx).start();
  try {
    const baseline = await victimSeries(ctx, victim, "idle", sizes);
    ctx.log(
      `idle baseline: p50 ${baseline.p50Ms} ms, p99 ${baseline.p99Ms} ms (create request p99 ${baseline.createP99Ms} ms)`,
    );
    const attacks: NoisyNeighbourResult["attacks"] = {};
    let unnamedLimits = 0;
    for (const name of ATTACKS) {
      const result = await underAttack(ctx, victim, name, baseline, sizes);
      attacks[name] = result;
      if (result.ready === undefined) unnamedLimits += result.attackingObjects - result.limitNamed;
    }
    sampler.stop();
    const ratios = Object.values(attacks).map(a => a.p99Ratio);
    const highWater = Math.max(0, ...sampler.highWaterMb.values());
    return {
      baseline,
      victimP99Ratio: Math.max(0, ...ratios),
      watcherPeakRssMb: round(Math.max(sampler.peakMb, highWater), 1),
      rssBoundMb: RSS_PEAK_BOUND_MB,
      restarts: Math.max(0, sampler.pids.size - 1),
      unnamedLimits,
      attacks,
      seconds: Math.round((performance.now() - started) / 1000),
    };
  } finally {
    sampler.stop();
    victim.stop();
  }
}

export const noisyNeighbour: Scenario<"noisyNeighbour"> = {
  run: (ctx, sizes) => run(ctx, sizes.noisyNeighbour),
  zeros: ["restarts", "unnamedLimits"],
  check: (result, sizes) => {
    const broken: string[] = [];
    const missing = ATTACKS.filter(name => !result.attacks[name]);
    if (missing.length > 0) broken.push(`attacks not run: ${missing.join(", ")}`);
    if (result.watcherPeakRssMb >= result.rssBoundMb)
      broken.push(`watcher peak RSS ${result.watcherPeakRssMb} MB, bound ${result.rssBoundMb}`);
    for (const [name, attack] of Object.entries(result.attacks))
      if (attack.attackingObjects === 0) broken.push(`${name}: no attacking object was found`);
    // Latency depends on the machine's speed: judged on the full run only (faults/README.md).
    if (sizes.noisyNeighbour.judgeLatency && result.victimP99Ratio > VICTIM_P99_RATIO_BOUND)
      broken.push(
        `victim p99 ${result.victimP99Ratio}× its idle baseline, bound ${VICTIM_P99_RATIO_BOUND}×`,
      );
    return broken;
  },
  moduleEnv: (sizes): Record<string, string> => {
    const seconds = sizes.noisyNeighbour.gitTotalTimeoutSeconds;
    return seconds === undefined ? {} : { PORCH_PEPR_GIT_TOTAL_TIMEOUT_MS: String(seconds * 1000) };
  },
};
