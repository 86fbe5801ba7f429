// The worker side of the built-in pool: each built-in as a plain ResourceList → ResourceList
// function over text, like an exec function's process, so only text crosses between threads.
import type { MessagePort } from "node:worker_threads";
import type { Document } from "yaml";
import { parseResourceListYaml, resourceListYaml, type ListedItem } from "../resource-list";
import { errorResult, type ResultItem } from "../results";
import type { BuiltinFunction, FnItem } from "../types";

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

/**
 * Runs `fn` over the ResourceList `input` as the in-process runtime did: a function that throws
 * gives an error result, and its output items keep the id of the input they came from.
 */
export function runBuiltinOnText(fn: BuiltinFunction, input: string): string {
  const given = parseResourceListYaml(input);
  const ids = new Map<Document, string | undefined>(given.items.map(i => [i.doc, i.id]));
  const items: FnItem[] = given.items.map(i => ({
    doc: i.doc,
    path: i.path ?? "",
    index: i.index ?? 0,
  }));
  let listed: ListedItem[] = [];
  let results: ResultItem[];
  try {
    const output = fn({ items, functionConfig: given.functionConfig });
    listed = output.items.map(item => ({ ...item, id: ids.get(item.doc) }));
    results = output.results;
  } catch (error) {
    results = [errorResult((error as Error).message)];
  }
  return resourceListYaml(listed, { results });
}

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
      output = runBuiltinOnText(fn, job.input);
    } catch (error) {
      return port.postMessage({ error: (error as Error).message });
    }
    const bytes = Buffer.byteLength(output);
    port.postMessage(bytes > job.maxOutputBytes ? { outputBytes: bytes } : { output });
  });
  port.postMessage({ ready: true });
}
