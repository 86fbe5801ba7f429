// The bounds of the Pod runtime: what one function Pod may be asked at once, how long a Pod may
// take to start, and the sizes the wrapper and the operator accept.
import { DEFAULT_EXEC_MAX_OUTPUT_BYTES } from "../exec";
import { countSetting } from "../../count-setting";

export interface PodRuntimeLimits {
  /** Runs one Pod serves at once (the wrapper refuses more). */
  maxRunsPerPod: number;
  /** Runs waiting for a Pod (to start, or for a free run); more fail with QueueFull. */
  maxWaitingPerPod: number;
  /** A new Pod that is not Ready after this long fails the runs waiting for it. */
  startTimeoutMs: number;
  /** The operator waits for the wrapper's answer the function's timeoutMs plus this long. */
  answerMarginMs: number;
  /** A function's stdout beyond this stops it (OutputTooLarge), as for exec functions. */
  maxStdoutBytes: number;
  /** stderr kept per run; the rest is dropped. */
  maxStderrBytes: number;
  /** The largest ResourceList sent to a function. */
  maxRequestBytes: number;
  /** How often the pool compares its Pods with the API's (start-up adoption, leftovers). */
  syncIntervalMs: number;
  /**
   * Function Pods one function namespace runs at once, starting ones included: a new one past
   * it replaces the least recently used idle one, or, none idle, fails its run (TooManyPods).
   */
  maxPods: number;
}

export const DEFAULT_POD_RUNTIME_LIMITS: PodRuntimeLimits = {
  maxRunsPerPod: 4,
  maxWaitingPerPod: 64,
  startTimeoutMs: 120_000,
  answerMarginMs: 10_000,
  maxStdoutBytes: DEFAULT_EXEC_MAX_OUTPUT_BYTES,
  maxStderrBytes: 64 * 1024,
  maxRequestBytes: 32 * 1024 * 1024,
  syncIntervalMs: 5 * 60_000,
  maxPods: 20,
};

export const MAX_PODS_VARIABLE = "PORCH_PEPR_FN_MAX_PODS";

/** PORCH_PEPR_FN_MAX_PODS: a count from 1 to 1,000; otherwise the default, with a warning. */
export function maxPodsFromEnv(env: Record<string, string | undefined>): {
  maxPods: number;
  warnings: string[];
} {
  const fallback = DEFAULT_POD_RUNTIME_LIMITS.maxPods;
  const { value, warning } = countSetting(env, MAX_PODS_VARIABLE, fallback, 1000);
  return { maxPods: value, warnings: warning ? [warning] : [] };
}

/**
 * The most a wrapper's answer can hold: stdout in base64 (4/3 of its size), stderr as a JSON
 * string (at worst 6 bytes per byte, `\u00XX`), and room for the rest.
 */
export function maxAnswerBytes(limits: PodRuntimeLimits): number {
  return Math.ceil(limits.maxStdoutBytes / 3) * 4 + limits.maxStderrBytes * 6 + 64 * 1024;
}
