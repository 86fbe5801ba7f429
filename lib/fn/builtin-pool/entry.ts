// Where a built-in worker starts. The module ships as one bundled file (dist/pepr-porch-pepr.js
// on a host; in the Pod, Pepr's controller forks it as /app/module-<hash>.js), so a worker
// runs that very file and startModule serves built-ins instead of starting the module when it
// finds itself in such a worker. From the TypeScript sources (unit tests) tsx compiles
// ./worker.ts instead.
import { join } from "node:path";
import { isMainThread, workerData } from "node:worker_threads";

const ROLE = "porch-pepr-builtin-functions";

/** How the pool starts a worker: a script file, or code to evaluate. */
export interface WorkerEntry {
  script: string;
  eval: boolean;
  workerData: unknown;
}

/** Whether this thread is a worker of the built-in pool. */
export const isBuiltinWorker = (): boolean =>
  !isMainThread && (workerData as { role?: unknown } | null)?.role === ROLE;

export function builtinWorkerEntry(): WorkerEntry {
  if (!__filename.endsWith(".ts"))
    return { script: __filename, eval: false, workerData: { role: ROLE } };
  const tsx = require.resolve(["tsx", "cjs"].join("/"));
  const worker = join(__dirname, "worker.ts");
  return {
    script: `require(${JSON.stringify(tsx)}); require(${JSON.stringify(worker)}).serveBuiltinWorker();`,
    eval: true,
    workerData: { role: ROLE },
  };
}
