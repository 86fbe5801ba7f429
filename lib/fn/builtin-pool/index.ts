// The bounded runtime of built-in functions: a small pool of worker threads (./pool.ts) that
// run lib/fn/builtins over ResourceList text (./host.ts).
import { builtinWorkerEntry } from "./entry";
import { BuiltinPool } from "./pool";

export { BuiltinPool, type BuiltinPoolOptions } from "./pool";
export { builtinWorkerEntry, isBuiltinWorker, type WorkerEntry } from "./entry";

/** Workers at once: with the default 128 MiB heap each, well inside a 512Mi watcher. */
export const BUILTIN_POOL_SIZE = 2;

let shared: BuiltinPool | undefined;

/** The process's one pool, started on first use (the admission process never renders). */
export function sharedBuiltinPool(): BuiltinPool {
  shared ??= new BuiltinPool({
    entry: builtinWorkerEntry(),
    size: BUILTIN_POOL_SIZE,
    maxWaiting: 64,
    startTimeoutMs: 60_000,
  });
  return shared;
}
