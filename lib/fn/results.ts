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

/** Appends a function's result; a failed function marks the whole list failed, as kpt does. */
export function addFunctionResult(list: FunctionResultList, result: FunctionResult): void {
  list.items.push(result);
  if (result.exitCode !== 0) list.exitCode = 1;
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
