// Small helpers to read and edit `yaml` Document nodes in place, so untouched comments,
// quoting and field order stay as written.
import { Document, isMap, isScalar, isSeq, Scalar, YAMLMap, YAMLSeq } from "yaml";
import { parseYamlDocument } from "../krm/yaml-parse";
import type { Node } from "yaml";

export type PathSegment = string | number;

/** The node at `path`, or undefined when any step is missing. */
export function nodeAt(root: unknown, path: readonly PathSegment[]): unknown {
  let node: unknown = root instanceof Document ? root.contents : root;
  for (const segment of path) {
    if (typeof segment === "number") {
      if (!isSeq(node)) return undefined;
      node = node.items[segment];
    } else {
      if (!isMap(node)) return undefined;
      node = node.get(segment, true);
    }
  }
  return node;
}

export function mapAt(root: unknown, path: readonly PathSegment[]): YAMLMap | undefined {
  const node = nodeAt(root, path);
  return isMap(node) ? node : undefined;
}

export function seqAt(root: unknown, path: readonly PathSegment[]): YAMLSeq | undefined {
  const node = nodeAt(root, path);
  return isSeq(node) ? node : undefined;
}

/**
 * The text of a scalar as written (Go yaml's Node.Value): strings as is, other scalars in
 * their source spelling when known ("1.0" stays "1.0"), null as "".
 */
export function scalarText(node: Scalar): string {
  if (typeof node.value === "string") return node.value;
  if (typeof node.source === "string") return node.source;
  if (node.value === null || node.value === undefined) return "";
  return String(node.value);
}

/** A string-valued scalar at `path` (numbers and booleans are given in their text form). */
export function stringAt(root: unknown, path: readonly PathSegment[]): string | undefined {
  const node = nodeAt(root, path);
  return isScalar(node) ? scalarText(node) : undefined;
}

/** Maps of string → string (labels, annotations, ConfigMap data). Non-scalars are skipped. */
export function stringMapAt(root: unknown, path: readonly PathSegment[]): Record<string, string> {
  const map = mapAt(root, path);
  const out: Record<string, string> = {};
  if (!map) return out;
  for (const pair of map.items) {
    if (isScalar(pair.key) && isScalar(pair.value))
      out[scalarText(pair.key)] = scalarText(pair.value);
  }
  return out;
}

/** Finds or creates nested maps along `path`; undefined if a non-map is in the way. */
export function ensureMapAt(root: YAMLMap, path: readonly string[]): YAMLMap | undefined {
  let map = root;
  for (const key of path) {
    const next = map.get(key, true);
    if (next === undefined || next === null || (isScalar(next) && next.value === null)) {
      const created = new YAMLMap();
      map.set(key, created);
      map = created;
    } else if (isMap(next)) {
      map = next;
    } else {
      return undefined;
    }
  }
  return map;
}

/** Sets `key` to a string, keeping the existing scalar node (and its comment) when there is one. */
export function setStringIn(map: YAMLMap, key: string, value: string): void {
  const existing = map.get(key, true);
  if (isScalar(existing)) {
    existing.value = value;
    return;
  }
  map.set(key, new Scalar(value));
}

export function rootMap(doc: Document): YAMLMap | undefined {
  return isMap(doc.contents) ? doc.contents : undefined;
}

export function annotationsOf(doc: Document): Record<string, string> {
  return stringMapAt(doc, ["metadata", "annotations"]);
}

export function labelsOf(doc: Document): Record<string, string> {
  return stringMapAt(doc, ["metadata", "labels"]);
}

export function setAnnotation(doc: Document, key: string, value: string): void {
  const root = rootMap(doc);
  const annotations = root ? ensureMapAt(root, ["metadata", "annotations"]) : undefined;
  if (annotations) setStringIn(annotations, key, value);
}

/** Removes annotations; drops `metadata.annotations` when it ends up empty. */
export function deleteAnnotations(doc: Document, keys: readonly string[]): void {
  const annotations = mapAt(doc, ["metadata", "annotations"]);
  if (!annotations) return;
  for (const key of keys) annotations.delete(key);
  if (annotations.items.length === 0) mapAt(doc, ["metadata"])?.delete("annotations");
}

export const LOCAL_CONFIG_ANNOTATION = "config.kubernetes.io/local-config";

/** kpt/SDK rule: any value other than "" or "false" marks a local-config resource. */
export function isLocalConfig(doc: Document): boolean {
  const value = annotationsOf(doc)[LOCAL_CONFIG_ANNOTATION];
  return value !== undefined && value !== "" && value !== "false";
}

/**
 * Gives a scalar new text the way Go yaml does when a function clears the node's tag:
 * quoted (and block) scalars stay strings, plain ones are re-resolved ("3" becomes a number,
 * "1.10" keeps its spelling), and the empty string is written as "".
 */
export function setScalarText(node: Scalar, text: string): void {
  if (node.type && node.type !== "PLAIN") {
    node.value = text;
    return;
  }
  if (text === "") {
    node.value = "";
    node.type = "QUOTE_DOUBLE";
    return;
  }
  const parsed = parseYamlDocument(text).contents;
  if (
    isScalar(parsed) &&
    parsed.type === "PLAIN" &&
    !parsed.comment &&
    typeof parsed.value !== "string"
  ) {
    node.value = parsed.value;
    node.format = parsed.format;
    node.minFractionDigits = parsed.minFractionDigits;
    return;
  }
  node.value = text;
  node.format = undefined;
  node.minFractionDigits = undefined;
}

/** Creates a node for a plain JS value within `doc`'s schema. */
export function createNode(doc: Document, value: unknown): Node {
  return doc.createNode(value) as Node;
}

/** Go %q-style quoting of a string (JSON escaping is the same for the printable cases). */
export function quote(value: string): string {
  return JSON.stringify(value);
}

/** Go %v of a []string: `[a b c]`. */
export function goList(values: readonly string[]): string {
  return `[${values.join(" ")}]`;
}
