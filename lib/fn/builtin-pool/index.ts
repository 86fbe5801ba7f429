// The bounded runtime of built-in functions: worker threads within a memory budget (./pool.ts)
// that run lib/fn/builtins over ResourceList text (./host.ts).
import { builtinWorkerEntry } from "./entry";
import { BuiltinPool } from "./pool";

export { BuiltinPool, type BuiltinPoolOptions } from "./pool";
export { builtinWorkerEntry, isBuiltinWorker, type WorkerEntry } from "./entry";
export * from "./settings";

let shared: BuiltinPool | undefined;

/** The process's one pool, started on first use (the admission process never renders). */
export function sharedBuiltinPool(memoryMiB: number): BuiltinPool {
  shared ??= new BuiltinPool({
    entry: builtinWorkerEntry(),
    memoryMiB,
    maxWaiting: 64,
    startTimeoutMs: 60_000,
  });
  return shared;
}
