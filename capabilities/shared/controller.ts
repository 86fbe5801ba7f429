import { Log, metricsCollector } from "pepr";
import {
  Reconciler,
  WorkQueue,
  WorkQueueOptions,
  defaultQueueOptions,
} from "../../lib/controller/work-queue";
import { errorMessage } from "../../lib/errors";
import { isTransientGitError } from "../../lib/git";

/**
 * The longest wait before retrying a git call whose server was down or cut off: a server back
 * after an outage is used again within this (the default cap, 5 minutes, made the fault
 * campaign's fan-out after a 2-minute outage wait up to 5 more). Each waiting key costs one
 * refused connection per period while the server stays down.
 */
export const GIT_RETRY_MAX_MS = 20_000;

export const maxRetryDelayOf = (error: unknown): number | undefined =>
  isTransientGitError(error) ? GIT_RETRY_MAX_MS : undefined;

/** "PackageVariantSet" → "reconciles_package_variant_set_total" (Pepr prefixes "pepr_"). */
export const reconcileCounterName = (controller: string): string =>
  `reconciles_${controller.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase()}_total`;

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
