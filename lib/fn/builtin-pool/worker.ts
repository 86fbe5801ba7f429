// A built-in worker's whole program: serve lib/fn/builtins to the pool (the bundle reaches it
// through startModule, the TypeScript sources through ./entry.ts).
import { parentPort } from "node:worker_threads";
import { BUILTIN_FUNCTIONS } from "../builtins";
import { serveBuiltins } from "./host";

export function serveBuiltinWorker(): void {
  if (parentPort) serveBuiltins(parentPort, BUILTIN_FUNCTIONS);
}
