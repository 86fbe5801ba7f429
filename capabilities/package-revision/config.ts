import { Log } from "pepr";
import { Slots } from "../../lib/controller/concurrency";
import {
  namespaceShares,
  packageRevisionConcurrency,
} from "../../lib/controller/render-concurrency";
import { defaultPerNamespace } from "../../lib/controller/work-queue";
import type { Cluster } from "../../lib/cluster/port";
import type { Logger, RenderSettings } from "../context";
import { CapacityRetries, createFunctionRuntime, DEFAULT_CAPACITY_BACKOFF } from "../../lib/fn";
import { builtinPoolSettings } from "../../lib/fn/builtin-pool";
import { renderLimitsFromEnv } from "../../lib/fn/render-limits";
import { maxPodsFromEnv } from "../../lib/fn/pod";
import { functionCatalog } from "../shared/function-catalog";
import { createPodRuntime } from "../shared/function-pods/runtime";

/** Reconcile workers and the renders among them (lib/controller/render-concurrency.ts). */
export const concurrency = packageRevisionConcurrency(process.env);
for (const warning of concurrency.warnings) Log.warn(warning);

/** What one namespace may hold of each queue's workers and of the render slots. */
export const shares = namespaceShares(process.env);
for (const warning of shares.warnings) Log.warn(warning);

/** The heap the built-in function workers may hold together. */
export const builtinPool = builtinPoolSettings(process.env);
for (const warning of builtinPool.warnings) Log.warn(warning);

/** How many functions a render's Kptfiles may list, and how long it may take. */
export const renderLimits = renderLimitsFromEnv(process.env);
for (const warning of renderLimits.warnings) Log.warn(warning);

/** How many function Pods one function namespace runs at once. */
export const functionPods = maxPodsFromEnv(process.env);
for (const warning of functionPods.warnings) Log.warn(warning);

/**
 * Operator settings for rendering, from the environment of the controller process. Functions
 * the catalog runs as Pods are created through `cluster` (the pools start on first use, so the
 * admission process, which never renders, makes none).
 */
export function renderSettings(cluster: Cluster, log: Logger): RenderSettings {
  return {
    // Renders running at once, at most the reconcile workers (a higher limit is never reached),
    // and of those at most a share per namespace.
    slots: new Slots(
      concurrency.renders,
      shares.renders ?? defaultPerNamespace(concurrency.renders),
    ),
    // When every render slot is taken, try again after this long instead of blocking.
    requeueDelayMs: Number(process.env.PORCH_PEPR_RENDER_REQUEUE_MS ?? 2000),
    // The administrator's function catalog decides how each function runs (exec included).
    runtime: createFunctionRuntime({
      catalog: functionCatalog,
      podRunner: createPodRuntime(cluster, log, { maxPods: functionPods.maxPods }).runner,
      builtinMemoryMiB: builtinPool.memoryMiB,
    }),
    catalog: functionCatalog,
    catalogFailures: new Map(),
    capacityRetries: new CapacityRetries({ ...DEFAULT_CAPACITY_BACKOFF, random: Math.random }),
    limits: renderLimits.limits,
  };
}
