// Node-level 3-way merge with kyaml merge3 semantics as used by kpt's resource-merge
// (dest = local, origin = old upstream, updated = new upstream), on `yaml` AST nodes so that
// local comments and field order survive. Differences from "keep both" are reported.
import { isMap, isScalar, isSeq, Pair, YAMLMap } from "yaml";
import {
  cloneNode,
  findPair,
  isMissingOrNull,
  isNullNode,
  keyName,
  sameNode,
  type YNode,
} from "../krm/nodes";
import { child, type Merge3Options, reportIfBothChanged, ROOT, type Where } from "./merge3-context";
import { keyItems, mergeKeyedList } from "./merge3-list";
import type { ConflictReason } from "./types";

export { type FieldConflict, type Merge3Options, whereAt } from "./merge3-context";

/** Merges three versions of a node; returns the merged node (often `dest` itself, edited) or undefined to delete it. */
export function merge3(
  dest: YNode,
  origin: YNode,
  updated: YNode,
  options: Merge3Options,
  where: Where = ROOT,
): YNode {
  // kpt: a value explicitly set to null on either side (and not null originally) is removed.
  if (!isNullNode(origin) && (isNullNode(updated) || isNullNode(dest))) {
    const resolution = isNullNode(dest) ? "local" : "upstream";
    reportIfBothChanged(dest, origin, updated, resolution, "BothModified", options, where);
    return undefined;
  }
  switch (kindOf(dest, origin, updated)) {
    case "map":
      return mergeMap(dest, origin, updated, options, where);
    case "seq": {
      const keyer = options.listKeys(where.fields);
      const keyed = keyer && keyItems(keyer, dest, origin, updated);
      if (keyed) return mergeKeyedList(dest, origin, updated, keyed, options, where, merge3);
      return mergeAtomic(dest, origin, updated, "AtomicListReplaced", options, where);
    }
    default:
      return mergeAtomic(dest, origin, updated, "BothModified", options, where);
  }
}

function kindOf(...nodes: YNode[]): "map" | "seq" | "scalar" {
  const present = nodes.filter(node => !isMissingOrNull(node));
  if (present.length > 0 && present.every(node => isMap(node))) return "map";
  if (present.length > 0 && present.every(node => isSeq(node))) return "seq";
  return "scalar";
}

/** Scalars and lists without merge keys: upstream's change wins as a whole. */
function mergeAtomic(
  dest: YNode,
  origin: YNode,
  updated: YNode,
  reason: ConflictReason,
  options: Merge3Options,
  where: Where,
): YNode {
  const updatedGone = isMissingOrNull(updated);
  const originGone = isMissingOrNull(origin);
  let takeUpdated: boolean;
  if (updatedGone !== originGone)
    takeUpdated = true; // added or removed upstream
  else if (updatedGone)
    takeUpdated = false; // absent upstream before and after: local only
  else takeUpdated = !sameNode(updated, origin);
  if (!takeUpdated || sameNode(dest, updated)) return dest;
  reportIfBothChanged(dest, origin, updated, "upstream", reason, options, where);
  return updatedGone ? undefined : adopt(updated, dest);
}

/** A copy of upstream's node; a scalar keeps the local line comment (e.g. a setter) if upstream has none. */
function adopt(updated: YNode, dest: YNode): YNode {
  const copy = cloneNode(updated);
  if (isScalar(copy) && isScalar(dest) && !copy.comment && dest.comment)
    copy.comment = dest.comment;
  return copy;
}

function mergeMap(
  dest: YNode,
  origin: YNode,
  updated: YNode,
  options: Merge3Options,
  where: Where,
): YNode {
  if (isMissingOrNull(dest)) {
    if (isMissingOrNull(updated)) return undefined; // deleted on both sides
    if (isMissingOrNull(origin)) return cloneNode(updated); // added upstream
  }
  if (sameNode(updated, origin)) return dest;
  const target = isMap(dest) ? dest : new YAMLMap();
  const wasEmpty = target.items.length === 0;
  const originMap = isMap(origin) ? origin : undefined;
  const updatedMap = isMap(updated) ? updated : undefined;
  const localKeys = new Set(target.items.map(keyName));
  for (const pair of [...target.items]) {
    const key = keyName(pair);
    const merged = merge3(
      pair.value,
      originMap && findPair(originMap, key)?.value,
      updatedMap && findPair(updatedMap, key)?.value,
      options,
      child(where, key),
    );
    if (merged === undefined) target.items.splice(target.items.indexOf(pair), 1);
    else pair.value = merged;
  }
  for (const [index, pair] of (updatedMap?.items ?? []).entries()) {
    const key = keyName(pair);
    if (localKeys.has(key)) continue;
    const merged = merge3(
      undefined,
      originMap && findPair(originMap, key)?.value,
      pair.value,
      options,
      child(where, key),
    );
    if (merged !== undefined)
      insertAfterPredecessor(
        target,
        new Pair(cloneNode(pair.key), merged),
        updatedMap?.items.slice(0, index) ?? [],
      );
  }
  if (target.items.length === 0 && !(isMap(dest) && wasEmpty)) return undefined;
  return target;
}

/** Inserts an upstream-added field after the closest preceding upstream field present locally. */
function insertAfterPredecessor(target: YAMLMap, pair: Pair, predecessors: readonly Pair[]): void {
  for (let i = predecessors.length - 1; i >= 0; i--) {
    const at = target.items.findIndex(item => keyName(item) === keyName(predecessors[i]));
    if (at >= 0) {
      target.items.splice(at + 1, 0, pair);
      return;
    }
  }
  target.items.unshift(pair);
}
