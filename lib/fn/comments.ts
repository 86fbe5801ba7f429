// What kyaml's FunctionFilter does for functions that do not keep comments: an output
// resource that matches its input (by id) gets the input's comments back and its fields in
// the input's order. An output with the same content as its input is the input.
import type { Document } from "yaml";
import { isMap, isScalar, isSeq, type Node, type YAMLMap, type YAMLSeq } from "yaml";
import { keyName, sameValue } from "../krm/nodes";
import { scalarText } from "./yaml-nodes";

/**
 * The most YAML aliases a comparison expands (yaml's own default, named here): a few hundred
 * bytes of nested aliases would expand to billions of nodes.
 */
export const MAX_COMPARED_ALIASES = 100;

/** A resource whose aliases expand past MAX_COMPARED_ALIASES: refused by name, not thrown raw. */
export class AliasBoundError extends Error {}

/** Same data, ignoring comments, formatting and map key order. Throws AliasBoundError. */
export function sameContent(a: Document, b: Document): boolean {
  try {
    const options = { maxAliasCount: MAX_COMPARED_ALIASES };
    return sameValue(a.toJS(options), b.toJS(options));
  } catch (error) {
    // yaml's refusal is a bare ReferenceError ("Excessive alias count ...").
    if (!(error instanceof ReferenceError) || !/alias/i.test(error.message)) throw error;
    throw new AliasBoundError(
      `its YAML aliases expand more than ${MAX_COMPARED_ALIASES} times, the most a function's output is compared with its input`,
    );
  }
}

/** Copies comments, field order and collection/quote styles from `from` onto `to`. */
export function restoreFormatting(from: Document, to: Document): void {
  to.commentBefore ??= from.commentBefore;
  to.comment ??= from.comment;
  restoreNode(from.contents, to.contents);
}

function restoreNode(from: unknown, to: unknown): void {
  if (!from || !to || typeof from !== "object" || typeof to !== "object") return;
  const source = from as Node;
  const target = to as Node;
  target.commentBefore ??= source.commentBefore;
  target.comment ??= source.comment;
  if (isMap(source) && isMap(target)) restoreMap(source, target);
  else if (isSeq(source) && isSeq(target)) restoreSeq(source, target);
  else if (isScalar(source) && isScalar(target) && scalarText(source) === scalarText(target)) {
    target.type = source.type;
  }
}

function restoreMap(from: YAMLMap, to: YAMLMap): void {
  to.flow = from.flow;
  const order = new Map<string, number>();
  from.items.forEach((pair, i) => order.set(keyName(pair), i));
  for (const pair of to.items) {
    const index = order.get(keyName(pair));
    if (index === undefined) continue;
    const original = from.items[index];
    if (isScalar(pair.key) && isScalar(original.key)) pair.key.comment ??= original.key.comment;
    restoreNode(original.value, pair.value);
  }
  // Fields the input had keep its order; new fields follow in the order the function wrote them.
  const known = to.items.filter(pair => order.has(keyName(pair)));
  known.sort((a, b) => (order.get(keyName(a)) ?? 0) - (order.get(keyName(b)) ?? 0));
  const added = to.items.filter(pair => !order.has(keyName(pair)));
  to.items = [...known, ...added];
}

/** List elements are paired by their `name` field when they have one, else by position. */
function restoreSeq(from: YAMLSeq, to: YAMLSeq): void {
  to.flow = from.flow;
  const byName = new Map<string, unknown>();
  for (const item of from.items) {
    const name = isMap(item) ? item.get("name") : undefined;
    if (typeof name === "string") byName.set(name, item);
  }
  to.items.forEach((item, i) => {
    const name = isMap(item) ? item.get("name") : undefined;
    restoreNode(typeof name === "string" ? byName.get(name) : from.items[i], item);
  });
}
