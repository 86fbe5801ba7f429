import { createFunctionRuntime } from "../../lib/fn";
import { execPolicy } from "../shared/exec-policy";

/** Operator settings for rendering, from the environment of the controller process. */
export const renderConfig = {
  /** Renders running at once (seed 002: default 20); 0 means unbounded. */
  maxConcurrentRenders: Number(process.env.PORCH_PEPR_MAX_CONCURRENT_RENDERS ?? 20),
  /** When every render slot is taken, try again after this long instead of blocking. */
  requeueDelayMs: Number(process.env.PORCH_PEPR_RENDER_REQUEUE_MS ?? 2000),
};

/** `exec` functions run only allow-listed executables, and only when the operator enables exec. */
export const functionRuntime = createFunctionRuntime({ execPolicy });
