import { Log, metricsCollector } from "pepr";
import {
  Reconciler,
  WorkQueue,
  WorkQueueOptions,
  defaultQueueOptions,
} from "../../lib/controller/work-queue";
import { NamespaceDepths } from "../../lib/controller/namespace-depths";
import { errorMessage } from "../../lib/errors";
import { isGitStoreError } from "../../lib/git";
import { fetchMemoryFromEnv, setProcessFetchMemory } from "../../lib/git/fetch-memory";

/**
 * The longest wait before retrying a git call whose server was down or cut off: a server back
 * after an outage is used again within this (the default cap, 5 minutes, made the fault
 * campaign's fan-out after a 2-minute outage wait up to 5 more). Each waiting key costs one
 * refused connection per period while the server stays down.
 */
export const GIT_RETRY_MAX_MS = 20_000;

/**
 * Only a server that was down or slow, or other fetches holding the fetch memory, ends by itself; a transport failure of git's own (a URL
 * that answers 404, say) is retried at the default pace, so a thousand variants with a broken
 * URL cost the git server a request every few minutes each, not every 20 s.
 */
export const maxRetryDelayOf = (error: unknown): number | undefined =>
  isGitStoreError(error, "Unavailable") ||
  isGitStoreError(error, "Timeout") ||
  isGitStoreError(error, "FetchMemoryBusy")
    ? GIT_RETRY_MAX_MS
    : undefined;

const snake = (controller: string) =>
  controller.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase();

/** "PackageVariantSet" → "reconciles_package_variant_set_total" (Pepr prefixes "pepr_"). */
export const reconcileCounterName = (controller: string): string =>
  `reconciles_${snake(controller)}_total`;

/** "PackageVariantSet" → "queue_depth_package_variant_set" and "…_peak" (Pepr prefixes "pepr_"). */
export const queueDepthGaugeNames = (controller: string) => ({
  depth: `queue_depth_${snake(controller)}`,
  peak: `queue_depth_${snake(controller)}_peak`,
});

/**
 * Serves a work queue's depth (keys queued, running or waiting for a delayed retry) and its
 * highest depth since the process started. Pepr's collector can only add to a gauge, so each
 * change is sent as the difference from the value last sent.
 */
function depthGauges(controller: string): (depth: number) => void {
  const names = queueDepthGaugeNames(controller);
  metricsCollector.addGauge(names.depth, `Keys queued, running or delayed in ${controller}`, []);
  metricsCollector.addGauge(names.peak, `Highest depth of the ${controller} queue so far`, []);
  let sent = 0;
  let peak = 0;
  return depth => {
    metricsCollector.incGauge(names.depth, {}, depth - sent);
    sent = depth;
    if (depth <= peak) return;
    metricsCollector.incGauge(names.peak, {}, depth - peak);
    peak = depth;
  };
}

/**
 * The process's fetch memory (lib/git/fetch-memory.ts) with its use on /metrics: bytes held by
 * isomorphic-git operations in flight and fetches waiting for them (pepr_git_fetch_memory_bytes,
 * pepr_git_fetch_memory_waiting).
 */
export function serveFetchMemoryUse(): void {
  const bytes = "git_fetch_memory_bytes";
  const waiting = "git_fetch_memory_waiting";
  metricsCollector.addGauge(bytes, "Bytes isomorphic-git fetches in flight hold", []);
  metricsCollector.addGauge(waiting, "Fetches waiting for fetch memory", []);
  const sent = { taken: 0, waiting: 0 };
  setProcessFetchMemory(
    fetchMemoryFromEnv(process.env, use => {
      metricsCollector.incGauge(bytes, {}, use.taken - sent.taken);
      metricsCollector.incGauge(waiting, {}, use.waiting - sent.waiting);
      Object.assign(sent, use);
    }),
  );
}

/** "PackageRevision" → "pepr_namespace_queue_depth_package_revision" (the full name). */
export const namespaceDepthMetricName = (controller: string): string =>
  `pepr_namespace_queue_depth_${snake(controller)}`;

/**
 * Per-namespace depths are served beside Pepr's metrics, not through its collector: its gauges
 * cannot drop a series, and a namespace's series must go when its work does.
 */
const namespaceDepths = new NamespaceDepths();
const peprMetrics = metricsCollector.getMetrics;
metricsCollector.getMetrics = async () => {
  const text = await peprMetrics();
  return `${text}${text.endsWith("\n") ? "" : "\n"}${namespaceDepths.exposition()}`;
};

function namespaceDepthGauge(controller: string): (namespace: string, depth: number) => void {
  const metric = namespaceDepthMetricName(controller);
  namespaceDepths.declare(metric, `Keys queued or running in ${controller}, per namespace`);
  return (namespace, depth) => namespaceDepths.set(metric, namespace, depth);
}

/**
 * A named controller's work queue: the manager (capabilities/manager.ts) enqueues keys, the
 * queue runs the reconciler with retries, counted on /metrics and logged. Reconcilers read
 * current state themselves (level-triggered), so events only say "look again".
 */
export class Controller {
  readonly queue: WorkQueue;

  constructor(
    readonly name: string,
    reconcile: Reconciler,
    options: Partial<WorkQueueOptions> = {},
  ) {
    // Served on /metrics as pepr_reconciles_<controller>_total: how much work an event costs.
    const counter = reconcileCounterName(name);
    metricsCollector.addCounter(counter, `Reconciles run by the ${name} controller`);
    const counted: Reconciler = key => {
      metricsCollector.incCounter(counter);
      return reconcile(key);
    };
    this.queue = new WorkQueue(counted, {
      ...defaultQueueOptions,
      maxDelayOf: maxRetryDelayOf,
      ...options,
      onDepth: depthGauges(name),
      onNamespaceDepth: namespaceDepthGauge(name),
      onError: (key, error, retryInMs) =>
        Log.warn(
          `${name} ${key}: ${errorMessage(error)} (retrying in ${Math.round(retryInMs / 1000)}s)`,
        ),
      // The reconciler reported it as a condition; a retry would only fail again.
      onPermanentError: (key, error) =>
        Log.info(
          `${name} ${key}: ${error.reason}: ${error.message} (not retried until it changes)`,
        ),
    });
  }
}
