// What crosses between the main thread and a built-in worker: each document as its own YAML
// text, read back as a package file's documents are read (parseYamlFile), so comments stay on
// the lines kpt functions look for them. Inside a ResourceList's `items:` a document is
// re-indented, and a key-line comment such as `environments: # kpt-set: ${env}` moved onto the
// list below it: apply-setters then no longer found its setter.
import { Document } from "yaml";
import { parseYamlFile } from "../../krm/documents";
import { errorResult, hasErrorResult, type ResultItem } from "../results";
import type { BuiltinFunction, FnItem, RunRequest, RunResponse } from "../types";

interface WireItem {
  text: string;
  path: string;
  index: number;
  /** The input item this one came from, if any. */
  source?: number;
}

interface WireInput {
  items: WireItem[];
  functionConfig?: string;
}

interface WireOutput {
  items: WireItem[];
  results: ResultItem[];
}

const textOf = (doc: Document): string => doc.toString({ lineWidth: 0 });
const docOf = (text: string): Document => parseYamlFile(text).docs[0] ?? new Document(null);

/** A run's input as the worker takes it. */
export function encodeRequest(request: RunRequest): string {
  const input: WireInput = {
    items: request.items.map((item, source) => ({
      text: textOf(item.doc),
      path: item.path,
      index: item.index,
      source,
    })),
    ...(request.functionConfig && { functionConfig: textOf(request.functionConfig) }),
  };
  return JSON.stringify(input);
}

/**
 * Runs `fn` over an encoded input, in the worker, as the in-process runtime did: a function that
 * throws gives an error result; each output item names the input it came from.
 */
export function runEncoded(fn: BuiltinFunction, encoded: string): string {
  const given = JSON.parse(encoded) as WireInput;
  const sources = new Map<Document, number | undefined>();
  const items: FnItem[] = given.items.map(item => {
    const doc = docOf(item.text);
    sources.set(doc, item.source);
    return { doc, path: item.path, index: item.index };
  });
  const functionConfig =
    given.functionConfig === undefined ? undefined : docOf(given.functionConfig);
  let output: WireOutput;
  try {
    const out = fn({ items, functionConfig });
    output = {
      items: out.items.map(item => ({
        text: textOf(item.doc),
        path: item.path,
        index: item.index,
        source: sources.get(item.doc),
      })),
      results: out.results,
    };
  } catch (error) {
    output = { items: [], results: [errorResult((error as Error).message)] };
  }
  return JSON.stringify(output);
}

/** The worker's answer as a RunResponse: an item whose text is unchanged is its input itself. */
export function decodeResponse(request: RunRequest, encoded: string): RunResponse {
  const output = JSON.parse(encoded) as WireOutput;
  const items = output.items.map(item => {
    const input = item.source === undefined ? undefined : request.items[item.source];
    const doc = input && textOf(input.doc) === item.text ? input.doc : docOf(item.text);
    return { doc, path: item.path, index: item.index, source: input ? item.source : undefined };
  });
  return {
    items,
    results: output.results,
    exitCode: hasErrorResult(output.results) ? 1 : 0,
  };
}
