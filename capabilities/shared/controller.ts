import { Log } from "pepr";
import {
  Reconciler,
  WorkQueue,
  WorkQueueOptions,
  defaultQueueOptions,
} from "../../lib/controller/work-queue";
import { errorMessage } from "./api-errors";

interface Keyed {
  metadata?: { name?: string; namespace?: string };
}

export const keyOf = (obj: Keyed): string =>
  `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;

export function splitKey(key: string): { namespace: string; name: string } {
  const [namespace, name] = key.split("/");
  return { namespace, name };
}

/**
 * A named controller: Pepr watch callbacks enqueue keys, the queue runs the reconciler with
 * retries. Reconcilers read current state themselves (level-triggered), so events only say
 * "look again".
 */
export class Controller {
  readonly queue: WorkQueue;

  constructor(
    readonly name: string,
    reconcile: Reconciler,
    options: Partial<WorkQueueOptions> = {},
  ) {
    this.queue = new WorkQueue(reconcile, {
      ...defaultQueueOptions,
      ...options,
      onError: (key, error, retryInMs) =>
        Log.warn(
          `${name} ${key}: ${errorMessage(error)} (retrying in ${Math.round(retryInMs / 1000)}s)`,
        ),
    });
  }

  enqueue = (obj: Keyed): void => this.queue.add(keyOf(obj));
}
