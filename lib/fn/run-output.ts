// A function process's output as a RunResponse: shared by the runtimes that run a process and
// read a ResourceList from its stdout (exec, and pod, whose wrapper runs it in the Pod).
import { AliasBoundError, restoreFormatting, sameContent } from "./comments";
import type { ExecOutcome } from "./exec";
import { parseResourceListYaml } from "./resource-list";
import { hasErrorResult } from "./results";
import type { RunRequest, RunResponse } from "./types";

/**
 * Parses stdout as the output ResourceList and matches each item to the input it came from (its
 * id annotation), keeping the input's formatting and comments. A stopped process, output that
 * is not a ResourceList, or a non-zero exit is a response with `failure` set (and `bound`,
 * when a limit stopped it).
 */
export function responseFromOutput(request: RunRequest, outcome: ExecOutcome): RunResponse {
  const stderr = outcome.stderr || undefined;
  if (outcome.failure) {
    return {
      items: [],
      results: [],
      exitCode: outcome.exitCode || 1,
      stderr,
      failure: outcome.failure,
      ...(outcome.bound && { bound: outcome.bound }),
      ...(outcome.capacity && { capacity: outcome.capacity }),
    };
  }
  let parsed;
  try {
    parsed = parseResourceListYaml(outcome.stdout);
  } catch (error) {
    const failure =
      outcome.exitCode !== 0 ? `exited with code ${outcome.exitCode}` : (error as Error).message;
    return { items: [], results: [], exitCode: outcome.exitCode || 1, stderr, failure };
  }
  const items = [];
  for (const [at, item] of parsed.items.entries()) {
    const source = item.id !== undefined && /^\d+$/.test(item.id) ? Number(item.id) : undefined;
    const input = source !== undefined ? request.items[source]?.doc : undefined;
    let doc = item.doc;
    try {
      if (input && sameContent(input, doc)) doc = input;
      else if (input) restoreFormatting(input, doc);
    } catch (error) {
      if (!(error instanceof AliasBoundError)) throw error;
      const failure = `output item ${at} or its input: ${error.message}`;
      return { items: [], results: [], exitCode: 1, stderr, failure, bound: "FunctionOutputLimit" };
    }
    items.push({ doc, path: item.path, index: item.index, source: input ? source : undefined });
  }
  const exitCode =
    outcome.exitCode !== 0 ? outcome.exitCode : hasErrorResult(parsed.results) ? 1 : 0;
  const failure = outcome.exitCode !== 0 ? `exited with code ${outcome.exitCode}` : undefined;
  return { items, results: parsed.results, exitCode, stderr, failure };
}
