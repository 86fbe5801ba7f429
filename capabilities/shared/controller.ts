import { Log, metricsCollector } from "pepr";
import {
  Reconciler,
  WorkQueue,
  WorkQueueOptions,
  defaultQueueOptions,
} from "../../lib/controller/work-queue";
import { errorMessage } from "../../lib/errors";

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
