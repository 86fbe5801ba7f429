import type { Cluster } from "../../../lib/cluster/port";
import { errorMessage } from "../../../lib/errors";
import {
  DEFAULT_POD_RUNTIME_LIMITS,
  failedRun,
  podFailure,
  podFunctionProblems,
  podTemplate,
  type PodRuntimeLimits,
} from "../../../lib/fn/pod";
import { FunctionRuntimeError, type PodRunnerFactory } from "../../../lib/fn/runtime";
import type { Logger } from "../../context";
import { FunctionPodPool } from "./pool";
import { postRun, type WrapperTransport } from "./wrapper-client";

export interface PodRuntime {
  runner: PodRunnerFactory;
  /** Stops the pools' timers (their Pods stay, for the next process to adopt). */
  close(): void;
}

export interface PodRuntimeOptions extends Partial<PodRuntimeLimits> {
  /** How runs reach a wrapper; tests replace it. */
  transport?: WrapperTransport;
  now?: () => number;
}

/**
 * The Pod runtime of this process: one pool per function namespace, made on the first runner
 * for it (which is when it adopts or deletes the Pods an earlier process left there). A catalog
 * entry or settings with problems throw FunctionRuntimeError, naming every problem; a runner
 * never throws, its failures are responses whose message names the image, the runtime and the
 * reason.
 */
export function createPodRuntime(
  cluster: Cluster,
  log: Logger,
  options: PodRuntimeOptions = {},
): PodRuntime {
  const { transport = postRun, now, ...given } = options;
  const limits: PodRuntimeLimits = { ...DEFAULT_POD_RUNTIME_LIMITS, ...given };
  const pools = new Map<string, FunctionPodPool>();
  const pool = (namespace: string) => {
    let found = pools.get(namespace);
    if (!found) {
      found = new FunctionPodPool(namespace, { cluster, log, limits, transport, now });
      pools.set(namespace, found);
    }
    return found;
  };
  return {
    runner(fn, settings) {
      const problems = podFunctionProblems(fn, settings);
      if (problems.length > 0)
        throw new FunctionRuntimeError(
          podFailure(String(fn.image), "InvalidFunction", problems.join("; ")),
        );
      const template = podTemplate(fn, settings, limits);
      const functionPods = pool(settings.namespace);
      return {
        runtime: "pod",
        run: request =>
          functionPods
            .run(template, request)
            .catch(error => failedRun(fn.image, "Internal", errorMessage(error))),
      };
    },
    close() {
      for (const p of pools.values()) p.close();
    },
  };
}
