// The KRM Functions Specification wire format: a ResourceList (config.kubernetes.io/v1)
// with `items`, `functionConfig` and, on output, `results`. Items carry their file
// location in the internal.config.kubernetes.io annotations (and the legacy ones).
import { Document, isMap, isSeq } from "yaml";
import { parseYamlDocument } from "../krm/yaml-parse";
import { parseYamlFile } from "../krm/documents";
import type { ResourceRef, ResultItem, Severity } from "./results";
import type { FnItem } from "./types";
import { deleteAnnotations, setAnnotation, stringAt } from "./yaml-nodes";

export const PATH_ANNOTATION = "internal.config.kubernetes.io/path";
export const INDEX_ANNOTATION = "internal.config.kubernetes.io/index";
export const ID_ANNOTATION = "internal.config.kubernetes.io/id";
export const LEGACY_PATH_ANNOTATION = "config.kubernetes.io/path";
export const LEGACY_INDEX_ANNOTATION = "config.kubernetes.io/index";
export const LEGACY_ID_ANNOTATION = "config.k8s.io/id";

const LOCATION_ANNOTATIONS = [
  PATH_ANNOTATION,
  INDEX_ANNOTATION,
  ID_ANNOTATION,
  LEGACY_PATH_ANNOTATION,
  LEGACY_INDEX_ANNOTATION,
  LEGACY_ID_ANNOTATION,
];

export class ResourceListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ResourceListError";
  }
}

/** An item read back from a function; location fields are undefined when it gave none. */
export interface ReturnedItem {
  doc: Document;
  path?: string;
  index?: number;
  id?: string;
}

export interface ReturnedResourceList {
  items: ReturnedItem[];
  results: ResultItem[];
  /** What a function is given with its input; absent in most outputs. */
  functionConfig?: Document;
}

/** Serialises the function input; item `i` gets id annotation `i` to match outputs to inputs. */
export function toResourceListYaml(
  items: readonly FnItem[],
  functionConfig: Document | undefined,
): string {
  return resourceListYaml(
    items.map((item, i) => ({ ...item, id: String(i) })),
    { functionConfig },
  );
}

/** An item as a ResourceList carries it: its location, and the id of the input it came from. */
export interface ListedItem {
  doc: Document;
  path?: string;
  index?: number;
  id?: string;
}

/** A ResourceList's text: the items with their location annotations, then config and results. */
export function resourceListYaml(
  items: readonly ListedItem[],
  extra: { functionConfig?: Document; results?: readonly ResultItem[] },
): string {
  const list = new Document({
    apiVersion: "config.kubernetes.io/v1",
    kind: "ResourceList",
    items: [],
  });
  const seq = list.get("items", true);
  for (const item of items) {
    const copy = item.doc.clone();
    const location: [string, string, string | undefined][] = [
      [PATH_ANNOTATION, LEGACY_PATH_ANNOTATION, item.path],
      [INDEX_ANNOTATION, LEGACY_INDEX_ANNOTATION, item.index?.toString()],
      [ID_ANNOTATION, LEGACY_ID_ANNOTATION, item.id],
    ];
    // The current annotations, then the legacy ones, as kpt writes them.
    for (const [key, , value] of location) if (value !== undefined) setAnnotation(copy, key, value);
    for (const [, legacy, value] of location)
      if (value !== undefined) setAnnotation(copy, legacy, value);
    if (isSeq(seq)) seq.items.push(copy.contents);
  }
  if (extra.functionConfig) list.set("functionConfig", extra.functionConfig.clone().contents);
  if (extra.results && extra.results.length > 0) list.set("results", extra.results);
  return list.toString({ lineWidth: 0 });
}

/** Parses a function's output; location annotations are read and removed from each item. */
export function parseResourceListYaml(text: string): ReturnedResourceList {
  const doc = parseYamlDocument(text);
  if (doc.errors.length > 0) {
    throw new ResourceListError(`function output is not valid YAML: ${doc.errors[0].message}`);
  }
  const root = doc.contents;
  if (!isMap(root) || stringAt(doc, ["kind"]) !== "ResourceList") {
    throw new ResourceListError("function output must be a ResourceList (kind: ResourceList)");
  }
  const itemsNode = root.get("items", true);
  if (itemsNode !== undefined && itemsNode !== null && !isSeq(itemsNode)) {
    throw new ResourceListError("function output ResourceList.items must be a list");
  }
  const items = isSeq(itemsNode) ? itemsNode.items.map(node => returnedItem(node)) : [];
  const config = root.get("functionConfig", true);
  const functionConfig = config ? reparsed(config) : undefined;
  return {
    items,
    results: parseResults(doc.toJS()?.results),
    ...(functionConfig && { functionConfig }),
  };
}

/** Re-parsed from text so the document has source ranges (and key-line comments stay put). */
const reparsed = (node: unknown): Document =>
  parseYamlFile(new Document(node).toString({ lineWidth: 0 })).docs[0] ?? new Document(node);

function returnedItem(node: unknown): ReturnedItem {
  const doc = reparsed(node);
  const path =
    stringAt(doc, ["metadata", "annotations", PATH_ANNOTATION]) ??
    stringAt(doc, ["metadata", "annotations", LEGACY_PATH_ANNOTATION]);
  const index =
    stringAt(doc, ["metadata", "annotations", INDEX_ANNOTATION]) ??
    stringAt(doc, ["metadata", "annotations", LEGACY_INDEX_ANNOTATION]);
  const id =
    stringAt(doc, ["metadata", "annotations", ID_ANNOTATION]) ??
    stringAt(doc, ["metadata", "annotations", LEGACY_ID_ANNOTATION]);
  deleteAnnotations(doc, LOCATION_ANNOTATIONS);
  const parsedIndex = index !== undefined && /^\d+$/.test(index) ? Number(index) : undefined;
  return { doc, path: path || undefined, index: parsedIndex, id };
}

/**
 * Results come either as a list or, from older SDKs, wrapped as `{items: [...]}`; resource
 * names may sit under `resourceRef.metadata` and proposals under `field.suggestedValue`.
 */
export function parseResults(value: unknown): ResultItem[] {
  const list = isRecord(value) && Array.isArray(value.items) ? value.items : value;
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).map(toResultItem);
}

function toResultItem(raw: Record<string, unknown>): ResultItem {
  const item: ResultItem = { message: typeof raw.message === "string" ? raw.message : "" };
  const severity = typeof raw.severity === "string" ? raw.severity.toLowerCase() : "";
  if (severity === "error" || severity === "warning" || severity === "info")
    item.severity = severity as Severity;
  if (isRecord(raw.resourceRef)) item.resourceRef = toResourceRef(raw.resourceRef);
  if (isRecord(raw.field)) {
    const field = raw.field;
    const proposed = field.proposedValue ?? field.suggestedValue;
    item.field = {
      path: asString(field.path),
      currentValue: asString(field.currentValue),
      proposedValue: asString(proposed),
    };
  }
  if (isRecord(raw.file)) {
    item.file = { path: asString(raw.file.path) };
    if (typeof raw.file.index === "number") item.file.index = raw.file.index;
  }
  if (isRecord(raw.tags)) {
    item.tags = Object.fromEntries(Object.entries(raw.tags).map(([k, v]) => [k, String(v)]));
  }
  return item;
}

function toResourceRef(raw: Record<string, unknown>): ResourceRef {
  const meta = isRecord(raw.metadata) ? raw.metadata : {};
  return {
    apiVersion: asString(raw.apiVersion),
    kind: asString(raw.kind),
    name: asString(raw.name ?? meta.name),
    namespace: asString(raw.namespace ?? meta.namespace),
  };
}

function asString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
