// Keyed (associative) lists in the 3-way merge: items are matched by merge key, local items
// keep their order, then old-upstream items, then new upstream items (kyaml's order).
import { isMap, isSeq, Pair, Scalar, YAMLSeq } from "yaml";
import { cloneNode, findPair, getField, isMissingOrNull, sameNode, type YNode } from "../krm/nodes";
import type { ElementKey, ListKeyer } from "./merge-keys";
import { type Merge3Options, report, reportIfBothChanged, type Where } from "./merge3-context";

/** Merges one node of the tree (merge3 itself, passed in to avoid an import cycle). */
export type Recurse = (
  dest: YNode,
  origin: YNode,
  updated: YNode,
  options: Merge3Options,
  where: Where,
) => YNode;

export interface KeyedSources {
  dest: Map<string, [ElementKey, YNode]>;
  origin: Map<string, [ElementKey, YNode]>;
  updated: Map<string, [ElementKey, YNode]>;
}

/** Keys every item of every version; undefined (→ atomic) if an item has no key or keys repeat. */
export function keyItems(
  keyer: ListKeyer,
  dest: YNode,
  origin: YNode,
  updated: YNode,
): KeyedSources | undefined {
  const index = (node: YNode): Map<string, [ElementKey, YNode]> | undefined => {
    const out = new Map<string, [ElementKey, YNode]>();
    for (const item of isSeq(node) ? node.items : []) {
      const key = keyer(item);
      if (!key || out.has(key.id)) return undefined;
      out.set(key.id, [key, item]);
    }
    return out;
  };
  const [d, o, u] = [index(dest), index(origin), index(updated)];
  return d && o && u ? { dest: d, origin: o, updated: u } : undefined;
}

export function mergeKeyedList(
  dest: YNode,
  origin: YNode,
  updated: YNode,
  items: KeyedSources,
  options: Merge3Options,
  where: Where,
  recurse: Recurse,
): YNode {
  if (isMissingOrNull(updated) && !isMissingOrNull(origin)) {
    reportIfBothChanged(dest, origin, updated, "upstream", "BothModified", options, where);
    return undefined; // list removed upstream
  }
  if (isMissingOrNull(dest) && isMissingOrNull(origin)) return cloneNode(updated);
  if (sameNode(updated, origin)) return dest;
  // kyaml's item order: local items, then items of the old upstream, then new upstream items.
  const ids = [...new Set([...items.dest.keys(), ...items.origin.keys(), ...items.updated.keys()])];
  const result: YNode[] = [];
  for (const id of ids) {
    const merged = mergeItem(
      items.dest.get(id),
      items.origin.get(id),
      items.updated.get(id),
      options,
      where,
      recurse,
    );
    if (merged !== undefined && !(isMap(merged) && merged.items.length === 0)) result.push(merged);
  }
  const target = isSeq(dest) ? dest : new YAMLSeq();
  const wasEmpty = target.items.length === 0;
  target.items = result;
  if (result.length === 0 && !(isSeq(dest) && wasEmpty)) return undefined;
  return target;
}

type Item = [ElementKey, YNode] | undefined;

function mergeItem(
  dest: Item,
  origin: Item,
  updated: Item,
  options: Merge3Options,
  where: Where,
  recurse: Recurse,
): YNode {
  const key = (dest ?? origin ?? updated)?.[0];
  const at: Where = { fields: where.fields, display: `${where.display}[${key?.label ?? ""}]` };
  if (!origin) {
    if (!dest) return cloneNode(updated?.[1]); // added upstream
    if (!updated) return dest[1]; // added locally
    return recurse(dest[1], undefined, updated[1], options, at); // added on both sides
  }
  if (dest && updated) return recurse(dest[1], origin[1], updated[1], options, at);
  // Deleted on one side: kyaml still merges the item field by field, so a local deletion
  // gets upstream's changed fields back and an upstream deletion keeps only fields added
  // locally; the key fields are then put back. Reported once for the whole item.
  if (!dest && updated && !sameNode(updated[1], origin[1])) {
    report(options, at, "DeletedLocallyModifiedUpstream", undefined, updated[1], "upstream");
  }
  if (dest && !updated && !sameNode(dest[1], origin[1])) {
    report(options, at, "DeletedUpstreamModifiedLocally", dest[1], undefined, "upstream");
  }
  const quiet = { ...options, onConflict: () => undefined };
  const merged = recurse(dest?.[1], origin[1], updated?.[1], quiet, at);
  if (!isMap(merged) || merged.items.length === 0) return undefined;
  for (const field of key?.fields ?? []) {
    const value = getField(origin[1], field);
    if (value !== undefined && !findPair(merged, field))
      merged.items.unshift(new Pair(new Scalar(field), cloneNode(value)));
  }
  return merged;
}
