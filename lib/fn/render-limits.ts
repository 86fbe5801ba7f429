// The bounds of one render as a whole, beside each function's own (bounds.ts): how many
// functions its Kptfile pipelines may list together and how long it may take. Without them a
// Kptfile of thousands of functions holds a render slot for hours, each step serialising and
// comparing the ResourceList on the event loop (README “Security model”).
import { MAX_DURATION_MS, parseDuration } from "./catalog/formats";
import { countSetting } from "../count-setting";

export const PIPELINE_MAX_FUNCTIONS_VARIABLE = "PORCH_PEPR_PIPELINE_MAX_FUNCTIONS";
export const RENDER_TIMEOUT_VARIABLE = "PORCH_PEPR_RENDER_TIMEOUT";

/** A render that exceeds one of these ends Rendered=False with this reason. */
export type RenderBound = "TooManyFunctions" | "RenderTimeout";

export interface RenderLimits {
  /** Most functions (mutators and validators) of all the Kptfiles of one package together. */
  maxFunctions: number;
  /** Most time one render may take; checked before each function starts. */
  timeoutMs: number;
}

/**
 * kpt pipelines rarely list more than 20 functions. Five minutes is 30 built-in functions at
 * their 10s bound, and several function Pods at their 60s one.
 */
export const DEFAULT_RENDER_LIMITS: RenderLimits = { maxFunctions: 50, timeoutMs: 5 * 60_000 };

// Each function run is an entry of the render's results in the PackageRevisionResources status.
const MAX_FUNCTIONS_CEILING = 200;

export interface RenderLimitSettings {
  limits: RenderLimits;
  warnings: string[];
}

/** PORCH_PEPR_PIPELINE_MAX_FUNCTIONS (a count) and PORCH_PEPR_RENDER_TIMEOUT (`5m`, `90s`). */
export function renderLimitsFromEnv(env: Record<string, string | undefined>): RenderLimitSettings {
  const limits = { ...DEFAULT_RENDER_LIMITS };
  const warnings: string[] = [];
  const count = countSetting(
    env,
    PIPELINE_MAX_FUNCTIONS_VARIABLE,
    DEFAULT_RENDER_LIMITS.maxFunctions,
    MAX_FUNCTIONS_CEILING,
  );
  limits.maxFunctions = count.value;
  if (count.warning) warnings.push(count.warning);
  const timeout = env[RENDER_TIMEOUT_VARIABLE];
  if (timeout !== undefined && timeout !== "") {
    const ms = parseDuration(timeout);
    if (ms !== undefined && ms > 0 && ms <= MAX_DURATION_MS) limits.timeoutMs = ms;
    else
      warnings.push(
        `${RENDER_TIMEOUT_VARIABLE}=${JSON.stringify(timeout)} is not a duration (like 5m or 90s): using ${DEFAULT_RENDER_LIMITS.timeoutMs / 60_000}m`,
      );
  }
  return { limits, warnings };
}

export function tooManyFunctionsProblem(count: number, maxFunctions: number): string | undefined {
  return count > maxFunctions
    ? `its Kptfile pipelines list ${count} functions together, more than ${maxFunctions} (${PIPELINE_MAX_FUNCTIONS_VARIABLE})`
    : undefined;
}
