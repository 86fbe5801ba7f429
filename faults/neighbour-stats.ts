// The noisy-neighbour scenario's arithmetic and judgements, kept pure so they are unit-tested:
// the victim's latency percentiles, and whether an attacking object's condition names the
// operator limit it hit.
import { round } from "../bench/metrics";
import { errorConditions, type StatusCondition } from "./soak-stats";
import type { VictimLatency } from "./results";
import { FUNCTION_BOUNDS, type FunctionBound } from "../lib/fn/bounds";

/** The nearest-rank percentile `p` of ascending `sorted` (0 for none). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/**
 * p50 and p99 of the victim's times to Ready (ms), drafts that timed out counting at the bound,
 * and of its create requests alone when given.
 */
export function victimLatency(
  times: readonly number[],
  timedOut: number,
  createTimes: readonly number[] = [],
): VictimLatency {
  const sorted = [...times].sort((a, b) => a - b);
  const creates = [...createTimes].sort((a, b) => a - b);
  return {
    drafts: times.length,
    p50Ms: Math.round(percentile(sorted, 50)),
    p99Ms: Math.round(percentile(sorted, 99)),
    timedOut,
    ...(creates.length > 0 && {
      createP50Ms: Math.round(percentile(creates, 50)),
      createP99Ms: Math.round(percentile(creates, 99)),
    }),
  };
}

/** `p99Ms` ÷ the baseline's, to 0.01 (Infinity when the baseline is 0). */
export const p99Ratio = (p99Ms: number, baseline: VictimLatency) =>
  baseline.p99Ms > 0 ? round(p99Ms / baseline.p99Ms, 2) : Infinity;

/**
 * Words an operator bound's message uses: its setting (PORCH_PEPR_…), "limit", "exceeds",
 * "at most", a timeout. The API server's own refusal of an oversized write ("Request entity too
 * large", etcd's "request is too large") is not one: it is where an unbounded operator fails.
 */
const LIMIT_WORDS = /PORCH_PEPR_[A-Z0-9_]+|\blimits?\b|\bexceed|\bat most\b|\btime(d)? ?out\b/i;
const API_SIZE_REFUSAL = /request entity too large|request is too large|etcdserver/i;

/**
 * The failure condition among `conditions` that names the limit the object hit, if any: a render
 * stopped at a function's bound says so in its reason (FunctionMemoryLimit, …).
 */
export function limitCondition(
  conditions: readonly StatusCondition[],
): StatusCondition | undefined {
  // A mirrored revision refused by a git content limit says so on Synced (the sync's own).
  const refused = conditions.filter(c => c.type === "Synced" && c.status === "False");
  return [...errorConditions(conditions), ...refused].find(c => {
    if (FUNCTION_BOUNDS.includes(c.reason as FunctionBound)) return true;
    const text = `${c.reason ?? ""}: ${c.message ?? ""}`;
    return LIMIT_WORDS.test(text) && !API_SIZE_REFUSAL.test(text);
  });
}

/** Longest message kept per condition in the results (a status may quote a lot). */
const MESSAGE_CHARS = 300;

/** "Kind name: Type=Status Reason: message; …", messages cut at 300 characters. */
export function conditionsLine(
  kind: string,
  name: string,
  conditions: readonly StatusCondition[],
): string {
  const each = conditions.map(c => {
    const message = c.message ?? "";
    const cut = message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}…` : message;
    return `${c.type}=${c.status} ${c.reason ?? ""}: ${cut}`;
  });
  return `${kind} ${name}: ${each.length > 0 ? each.join("; ") : "no conditions"}`;
}
