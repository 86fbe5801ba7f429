// Small helpers over `yaml` AST nodes: plain values, semantic equality, map edits that keep
// the surrounding comments and key order.
import { Document, isAlias, isMap, isPair, isScalar, isSeq, Pair, Scalar, YAMLMap } from "yaml";

/** A node as found in a parsed document (value of a pair or item of a sequence). */
export type YNode = unknown;

/** Converts a node to a plain JSON-like value (maps → objects, sequences → arrays). */
export function plain(node: YNode): unknown {
  if (node === undefined) return undefined;
  if (isScalar(node)) return node.value;
  if (isAlias(node)) return `*${node.source}`;
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) out[String(plain(pair.key))] = plain(pair.value);
    return out;
  }
  if (isSeq(node)) return node.items.map(item => plain(item));
  return node ?? null;
}

/** Order-insensitive for map keys, order-sensitive for sequences; compares typed values. */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

export function sameNode(a: YNode, b: YNode): boolean {
  return sameValue(plain(a), plain(b));
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
      return sorted;
    }
    return v === undefined ? "\u0000undefined" : v;
  });
}

export function isNullNode(node: YNode): boolean {
  return isScalar(node) && node.value === null;
}

export function isMissingOrNull(node: YNode): boolean {
  return node === undefined || node === null || isNullNode(node);
}

/** Deep copy of a node, keeping its comments. */
export function cloneNode<T>(node: T): T {
  if (node && typeof node === "object" && "clone" in node && typeof node.clone === "function") {
    return node.clone() as T;
  }
  return node;
}

const factory = new Document();

/** Builds a node tree from a plain value. */
export function toNode(value: unknown): YNode {
  return factory.createNode(value);
}

/** A single-quoted scalar, as kyaml writes annotation values that contain `|`. */
export function singleQuoted(value: string): Scalar {
  const scalar = new Scalar(value);
  scalar.type = Scalar.QUOTE_SINGLE;
  return scalar;
}

export function keyName(pair: Pair): string {
  return String(isScalar(pair.key) ? pair.key.value : pair.key);
}

export function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((item): item is Pair => isPair(item) && keyName(item) === key);
}

export function getField(node: YNode, key: string): YNode {
  return isMap(node) ? findPair(node, key)?.value : undefined;
}

/** Follows a field path through nested maps. */
export function getPath(node: YNode, path: readonly string[]): YNode {
  let current = node;
  for (const key of path) current = getField(current, key);
  return current;
}

/**
 * Sets `key` on `map`. An existing pair keeps its position and key comment; a new pair is
 * inserted before the first existing key listed after `key` in `order`, else appended.
 */
export function setField(
  map: YAMLMap,
  key: string,
  value: YNode,
  order: readonly string[] = [],
): void {
  const existing = findPair(map, key);
  if (existing) {
    existing.value = value;
    return;
  }
  const pair = new Pair(new Scalar(key), value);
  const later = new Set(order.slice(order.indexOf(key) + 1));
  const index = order.includes(key)
    ? map.items.findIndex(item => later.has(keyName(item as Pair)))
    : -1;
  if (index < 0) map.items.push(pair);
  else map.items.splice(index, 0, pair);
}

export function deleteField(map: YAMLMap, key: string): void {
  const index = map.items.findIndex(item => keyName(item as Pair) === key);
  if (index >= 0) map.items.splice(index, 1);
}

/** Returns the map at `key`, creating an empty one when absent or not a map. */
export function ensureMap(map: YAMLMap, key: string, order: readonly string[] = []): YAMLMap {
  const current = getField(map, key);
  if (isMap(current)) return current;
  const created = new YAMLMap();
  setField(map, key, created, order);
  return created;
}
