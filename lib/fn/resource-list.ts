// The KRM Functions Specification wire format: a ResourceList (config.kubernetes.io/v1)
// with `items`, `functionConfig` and, on output, `results`. Items carry their file
// location in the internal.config.kubernetes.io annotations (and the legacy ones).
import { Document, isMap, isSeq, parseDocument } from "yaml";
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
}

/** Serialises the function input; item `i` gets id annotation `i` to match outputs to inputs. */
export function toResourceListYaml(
  items: readonly FnItem[],
  functionConfig: Document | undefined,
): string {
  const list = new Document({
    apiVersion: "config.kubernetes.io/v1",
    kind: "ResourceList",
    items: [],
  });
  const seq = list.get("items", true);
  items.forEach((item, i) => {
    const copy = item.doc.clone();
    setAnnotation(copy, PATH_ANNOTATION, item.path);
    setAnnotation(copy, INDEX_ANNOTATION, String(item.index));
    setAnnotation(copy, ID_ANNOTATION, String(i));
    setAnnotation(copy, LEGACY_PATH_ANNOTATION, item.path);
    setAnnotation(copy, LEGACY_INDEX_ANNOTATION, String(item.index));
    setAnnotation(copy, LEGACY_ID_ANNOTATION, String(i));
    if (isSeq(seq)) seq.items.push(copy.contents);
  });
  if (functionConfig) list.set("functionConfig", functionConfig.clone().contents);
  return list.toString({ lineWidth: 0 });
}

/** Parses a function's output; location annotations are read and removed from each item. */
export function parseResourceListYaml(text: string): ReturnedResourceList {
  const doc = parseDocument(text);
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
  return { items, results: parseResults(doc.toJS()?.results) };
}

function returnedItem(node: unknown): ReturnedItem {
  // Re-parse from text so the document has source ranges (and key-line comments stay put).
  const doc =
    parseYamlFile(new Document(node).toString({ lineWidth: 0 })).docs[0] ?? new Document(node);
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
