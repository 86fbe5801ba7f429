// The worker side of the built-in pool: each built-in as a function over text (./wire.ts), so
// only text crosses between threads.
import type { MessagePort } from "node:worker_threads";
import type { BuiltinFunction } from "../types";
import { runEncoded } from "./wire";

/** One run, as the pool posts it. */
export interface BuiltinJob {
  builtin: string;
  input: string;
  maxOutputBytes: number;
}

/** The worker's answers: ready once it listens, then one reply per job. */
export type WorkerMessage =
  | { ready: true }
  | { output: string }
  | { outputBytes: number }
  | { error: string };

/** Serves jobs on `port` until the pool terminates this worker. */
export function serveBuiltins(
  port: MessagePort,
  builtins: Readonly<Record<string, BuiltinFunction>>,
): void {
  port.on("message", (job: BuiltinJob) => {
    const fn = Object.hasOwn(builtins, job.builtin) ? builtins[job.builtin] : undefined;
    if (!fn) return port.postMessage({ error: `this build has no built-in ${job.builtin}` });
    let output: string;
    try {
      output = runEncoded(fn, job.input);
    } catch (error) {
      return port.postMessage({ error: (error as Error).message });
    }
    const bytes = Buffer.byteLength(output);
    port.postMessage(bytes > job.maxOutputBytes ? { outputBytes: bytes } : { output });
  });
  port.postMessage({ ready: true });
}
