// kustomize replacement field paths: "."-separated, with list elements chosen by
// `[key=value]` (also written attached: `containers[name=app]`), numeric indexes, and in
// targets `*` for every field or element.
import { isMap, isScalar, isSeq, Scalar, YAMLMap, YAMLSeq } from "yaml";
import { isMissingOrNull } from "../../krm/nodes";
import { compileTenantRegex, quoteRegex } from "../../regex";
import { scalarText } from "../yaml-nodes";

/** Where a value lives: a key of a map or a position in a list. */
export type Slot = { map: YAMLMap; key: string } | { seq: YAMLSeq; index: number };

export function slotValue(slot: Slot): unknown {
  return "map" in slot ? slot.map.get(slot.key, true) : slot.seq.items[slot.index];
}

export function setSlot(slot: Slot, node: unknown): void {
  if ("map" in slot) slot.map.set(slot.key, node);
  else slot.seq.items[slot.index] = node;
}

/** kyaml SmarterPathSplitter: splits on "." except inside brackets; `a[k=v]` becomes `a`, `[k=v]`. */
export function splitFieldPath(path: string): string[] {
  const segments: string[] = [];
  let current = "";
  let depth = 0;
  for (const ch of path) {
    if (ch === "[") {
      if (depth === 0 && current !== "") {
        segments.push(current);
        current = "";
      }
      depth++;
    }
    if (ch === "]") depth = Math.max(0, depth - 1);
    if (ch === "." && depth === 0) {
      segments.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  segments.push(current);
  return segments.filter(segment => segment !== "");
}

export interface ResolveOptions {
  /** Allow `*` (targets only). */
  wildcard: boolean;
  /** Create missing maps/list elements on the way (target `options.create`). */
  create: boolean;
}

/** All slots `segments` reach from `root`; the final slot may hold no value yet. */
export function resolveSlots(
  root: unknown,
  segments: readonly string[],
  options: ResolveOptions,
): Slot[] {
  if (segments.length === 0) return [];
  const [segment, ...rest] = segments;
  const slots = childSlots(root, segment, options, rest[0]);
  if (rest.length === 0) return slots;
  return slots.flatMap(slot => {
    const next = slotValue(slot);
    return next === undefined ? [] : resolveSlots(next, rest, options);
  });
}

function childSlots(
  node: unknown,
  segment: string,
  options: ResolveOptions,
  next: string | undefined,
): Slot[] {
  if (segment === "*" && options.wildcard) {
    if (isMap(node))
      return node.items.map(pair => ({ map: node, key: scalarText(pair.key as Scalar) }));
    if (isSeq(node)) return node.items.map((_, index) => ({ seq: node, index }));
    return [];
  }
  const element = /^\[(.*?)=(.*)\]$/.exec(segment);
  if (element) return elementSlots(node, element[1], element[2], options, next);
  if (isSeq(node) && /^\d+$/.test(segment)) {
    const index = Number(segment);
    return index < node.items.length ? [{ seq: node, index }] : [];
  }
  if (!isMap(node)) return [];
  const key = /^\[(.*)\]$/.exec(segment)?.[1] ?? segment;
  if (next !== undefined && options.create && isMissingOrNull(node.get(key, true))) {
    node.set(key, next.startsWith("[") || /^\d+$/.test(next) ? new YAMLSeq() : new YAMLMap());
  }
  return [{ map: node, key }];
}

function elementSlots(
  node: unknown,
  key: string,
  value: string,
  options: ResolveOptions,
  next: string | undefined,
): Slot[] {
  if (!isSeq(node)) return [];
  const matcher = globMatcher(value, options.wildcard);
  const slots: Slot[] = [];
  node.items.forEach((item, index) => {
    const actual = key === "" ? item : isMap(item) ? item.get(key, true) : undefined;
    if (isScalar(actual) && matcher(scalarText(actual))) slots.push({ seq: node, index });
  });
  if (slots.length === 0 && options.create && next !== undefined) {
    const created = new YAMLMap();
    if (key !== "") created.set(key, new Scalar(value));
    node.items.push(created);
    slots.push({ seq: node, index: node.items.length - 1 });
  }
  return slots;
}

function globMatcher(pattern: string, wildcard: boolean): (text: string) => boolean {
  if (!wildcard || !pattern.includes("*")) return text => text === pattern;
  // The pattern comes from a tenant's function config: matched in linear time.
  const regex = compileTenantRegex(`^${pattern.split("*").map(quoteRegex).join(".*")}$`);
  return text => regex.test(text);
}
