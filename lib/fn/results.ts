// kpt's structured function results (pkg/api/fnresult/v1): what each function reported,
// aggregated into a FunctionResultList like `kpt fn render --results-dir` writes.
import { stringify } from "yaml";
import type { RuntimeName } from "./catalog";

export type Severity = "error" | "warning" | "info";

export interface ResourceRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
}

export interface ResultField {
  path?: string;
  currentValue?: string;
  proposedValue?: string;
}

export interface ResultFile {
  path?: string;
  index?: number;
}

/** One result item, as in kpt's ResultItem (severity omitted means info). */
export interface ResultItem {
  message: string;
  severity?: Severity;
  resourceRef?: ResourceRef;
  field?: ResultField;
  file?: ResultFile;
  tags?: Record<string, string>;
}

/**
 * The outcome of one function run (kpt's fnresult Result), with which runtime ran it and how
 * long the run took (ours: kpt has neither).
 */
export interface FunctionResult {
  image?: string;
  exec?: string;
  runtime?: RuntimeName;
  durationMs?: number;
  stderr?: string;
  exitCode: number;
  results?: ResultItem[];
}

export interface FunctionResultList {
  apiVersion: "kpt.dev/v1";
  kind: "FunctionResultList";
  metadata: { name: "fnresults" };
  exitCode: number;
  items: FunctionResult[];
}

export function newResultList(): FunctionResultList {
  return {
    apiVersion: "kpt.dev/v1",
    kind: "FunctionResultList",
    metadata: { name: "fnresults" },
    exitCode: 0,
    items: [],
  };
}

/**
 * What a render keeps of its functions' results. They end in the PackageRevisionResources'
 * status, beside up to 1 MiB of files, in one etcd object (1.5 MiB): a search-replace over
 * 10,000 fields reports 10,000 items, and a status that cannot be written is rendered again on
 * every retry. So a render keeps its first 100 result items and 64 KiB of them and of stderr
 * (as JSON), each text cut to 1,024 characters, and says in a last item how many it dropped.
 */
export const RESULT_BOUNDS = { maxItems: 100, maxBytes: 64 * 1024, maxTextChars: 1024 };

interface Kept {
  items: number;
  bytes: number;
  droppedItems: number;
  cutTexts: number;
}

const kept = new WeakMap<FunctionResultList, Kept>();

/**
 * Appends a function's result, within RESULT_BOUNDS (`result` itself is cut to what is kept);
 * a failed function marks the whole list failed, as kpt does.
 */
export function addFunctionResult(list: FunctionResultList, result: FunctionResult): void {
  const budget = kept.get(list) ?? { items: 0, bytes: 0, droppedItems: 0, cutTexts: 0 };
  kept.set(list, budget);
  const cut = (text: string): string => {
    if (text.length <= RESULT_BOUNDS.maxTextChars) return text;
    budget.cutTexts++;
    return `${text.slice(0, RESULT_BOUNDS.maxTextChars)}… (${text.length - RESULT_BOUNDS.maxTextChars} characters dropped)`;
  };
  if (result.image !== undefined) result.image = cut(result.image);
  if (result.exec !== undefined) result.exec = cut(result.exec);
  if (result.stderr !== undefined) {
    // The end of stderr says why a function failed; the budget's rest, at most maxTextChars.
    const room = Math.min(RESULT_BOUNDS.maxTextChars, RESULT_BOUNDS.maxBytes - budget.bytes);
    const tail = room > 0 ? result.stderr.slice(-room) : "";
    if (tail.length < result.stderr.length) {
      budget.cutTexts++;
      result.stderr = `(${result.stderr.length - tail.length} characters dropped) …${tail}`;
    }
    budget.bytes += JSON.stringify(tail).length;
  }
  if (result.results) {
    const items: ResultItem[] = [];
    for (const item of result.results) {
      const bounded = boundItem(item, cut);
      const bytes = JSON.stringify(bounded).length;
      if (budget.items >= RESULT_BOUNDS.maxItems || budget.bytes + bytes > RESULT_BOUNDS.maxBytes) {
        budget.droppedItems++;
        continue;
      }
      budget.items++;
      budget.bytes += bytes;
      items.push(bounded);
    }
    if (items.length > 0) result.results = items;
    else delete result.results;
  }
  list.items.push(result);
  if (result.exitCode !== 0) list.exitCode = 1;
}

/**
 * When the list dropped result items or cut texts, says so in a last info item of its last
 * function's results (kpt's FunctionResultList has no field for it).
 */
export function noteDroppedResults(list: FunctionResultList): void {
  const budget = kept.get(list);
  const last = list.items[list.items.length - 1];
  if (!budget || !last || (budget.droppedItems === 0 && budget.cutTexts === 0)) return;
  const { maxItems, maxBytes, maxTextChars } = RESULT_BOUNDS;
  (last.results ??= []).push(
    infoResult(
      `${budget.droppedItems} more result items were not kept and ${budget.cutTexts} texts were cut: a render keeps at most ${maxItems} result items, ${maxBytes / 1024} KiB of them and of stderr, ${maxTextChars} characters per text`,
    ),
  );
}

function boundItem(item: ResultItem, cut: (text: string) => string): ResultItem {
  const bounded: ResultItem = { message: cut(String(item.message ?? "")) };
  if (item.severity !== undefined) bounded.severity = item.severity;
  const strings = <T extends object>(value: T): T =>
    Object.fromEntries(
      Object.entries(value).map(([key, text]) => [
        cut(key),
        typeof text === "string" ? cut(text) : text,
      ]),
    ) as T;
  if (item.resourceRef) bounded.resourceRef = strings(item.resourceRef);
  if (item.field) bounded.field = strings(item.field);
  if (item.file) bounded.file = strings(item.file);
  if (item.tags) bounded.tags = strings(item.tags);
  return bounded;
}

export function hasErrorResult(results: readonly ResultItem[]): boolean {
  return results.some(r => r.severity === "error");
}

/** Human-readable form, like kpt's ResultItem.String(): `[error] v1/ConfigMap/ns/name path: msg`. */
export function formatResultItem(item: ResultItem): string {
  const ref = item.resourceRef;
  const id = ref
    ? [ref.apiVersion, ref.kind, ref.namespace, ref.name].filter(part => !!part).join("/")
    : "";
  let text = `[${item.severity ?? "info"}]`;
  if (id) text += ` ${id}`;
  if (item.field?.path) text += ` ${item.field.path}`;
  return `${text}: ${item.message}`;
}

/** The list as YAML, the format of kpt's results.yaml. */
export function resultListToYaml(list: FunctionResultList): string {
  return stringify(list, { lineWidth: 0 });
}

export function errorResult(message: string): ResultItem {
  return { message, severity: "error" };
}

export function infoResult(message: string): ResultItem {
  return { message, severity: "info" };
}

export function warningResult(message: string): ResultItem {
  return { message, severity: "warning" };
}
