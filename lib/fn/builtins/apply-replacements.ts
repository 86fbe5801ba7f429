// apply-replacements (krm-functions-catalog): kustomize `replacements` — copy a field of
// one source resource into fields of target resources, optionally a delimited part of it.
import type { Document } from "yaml";
import { isMap, isScalar, Scalar } from "yaml";
import { parseYamlValue } from "../../krm/yaml-parse";
import { cloneNode } from "../../krm/nodes";
import { errorResult } from "../results";
import type { BuiltinFunction } from "../types";
import { scalarText } from "../yaml-nodes";
import { configKind, configObject, FN_CONFIG_API_VERSION, isEmptyConfig } from "./config";
import { resolveSlots, setSlot, slotValue, splitFieldPath, type Slot } from "./replacement-paths";
import {
  parseReplacements,
  type FieldOptions,
  type Replacement,
  type TargetSelector,
} from "./replacement-config";
import { isEmptyResId, resIdString, selectedByLabels, selectedByResId } from "./replacement-select";

export const applyReplacements: BuiltinFunction = ({ items, functionConfig }) => {
  try {
    const replacements = readConfig(functionConfig);
    const docs = items.map(item => item.doc);
    for (const replacement of replacements) {
      const value = sourceValue(docs, replacement);
      for (const target of replacement.targets) applyTarget(docs, value, target);
    }
    return { items, results: [] };
  } catch (error) {
    return { items, results: [errorResult((error as Error).message)] };
  }
};

function readConfig(config: Document | undefined): Replacement[] {
  if (isEmptyConfig(config))
    throw new Error("FunctionConfig is missing. Expect `ApplyReplacements`");
  const kind = configKind(config);
  if (kind.kind !== "ApplyReplacements" || kind.apiVersion !== FN_CONFIG_API_VERSION) {
    throw new Error(
      `received functionConfig of kind ${kind.kind} and apiVersion ${kind.apiVersion}, ` +
        `only functionConfig of kind ApplyReplacements and apiVersion ${FN_CONFIG_API_VERSION} is supported`,
    );
  }
  return parseReplacements(configObject(config).replacements);
}

function sourceValue(docs: Document[], replacement: Replacement): unknown {
  const source = replacement.source;
  const matches = docs.filter(doc => selectedByResId(doc, source));
  if (matches.length > 1) throw new Error(`multiple matches for selector ${resIdString(source)}`);
  if (matches.length === 0) throw new Error(`nothing selected by ${resIdString(source)}`);
  const node = nodeAtPath(matches[0], source.fieldPath);
  if (isNilOrEmpty(node)) {
    throw new Error(
      `fieldPath \`${source.fieldPath}\` is missing for replacement source ${resIdString(source)}`,
    );
  }
  if (!source.options?.delimiter) return node;
  if (!isScalar(node)) throw new Error("delimiter option can only be used with scalar nodes");
  const parts = scalarText(node).split(source.options.delimiter);
  const index = source.options.index ?? 0;
  if (index < 0 || index >= parts.length) {
    throw new Error(`options.index ${index} is out of bounds for value ${scalarText(node)}`);
  }
  const part = node.clone() as Scalar;
  part.value = parts[index];
  return part;
}

function nodeAtPath(doc: Document, fieldPath: string): unknown {
  let node: unknown = doc.contents;
  for (const segment of splitFieldPath(fieldPath)) {
    const slots = resolveSlots(node, [segment], { wildcard: false, create: false });
    node = slots.length > 0 ? slotValue(slots[0]) : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

function applyTarget(docs: Document[], value: unknown, target: TargetSelector): void {
  for (const doc of docs) {
    if (!selectedByResId(doc, target.select) || !selectedByLabels(doc, target.select)) continue;
    const rejected = target.reject.some(
      reject =>
        (!isEmptyResId(reject) && selectedByResId(doc, reject)) ||
        ((reject.labelSelector || reject.annotationSelector) && selectedByLabels(doc, reject)),
    );
    if (rejected) continue;
    for (const fieldPath of target.fieldPaths) applyToField(doc, fieldPath, value, target.options);
  }
}

function applyToField(
  doc: Document,
  fieldPath: string,
  value: unknown,
  options: FieldOptions | undefined,
): void {
  const segments = splitFieldPath(fieldPath);
  const create = options?.create === true;
  if (create && segments.includes("*"))
    throw new Error("cannot support create option in a multi-value target");
  for (const slot of resolveSlots(doc.contents, segments, { wildcard: !create, create })) {
    const existing = slotValue(slot);
    if (existing === undefined && !create) continue;
    setTargetValue(slot, existing, value, options);
  }
}

/** kustomize setTargetValue, keeping string typing from the source as the catalog does. */
function setTargetValue(
  slot: Slot,
  existing: unknown,
  value: unknown,
  options: FieldOptions | undefined,
): void {
  if (!isScalar(value)) {
    setSlot(slot, cloneNode(value));
    return;
  }
  let text = scalarText(value);
  const target = isScalar(existing) ? existing : undefined;
  if (options?.delimiter) {
    if (!target && existing !== undefined)
      throw new Error("delimiter option can only be used with scalar nodes");
    const parts = target ? scalarText(target).split(options.delimiter) : [""];
    const index = options.index ?? 0;
    if (index < 0) parts.unshift(text);
    else if (index >= parts.length) parts.push(text);
    else parts[index] = text;
    text = parts.join(options.delimiter);
  }
  if (!target) {
    if (existing !== undefined && existing !== null) {
      setSlot(slot, cloneNode(value));
      return;
    }
    const created = new Scalar(
      typeof value.value === "string" || options?.delimiter ? text : value.value,
    );
    created.type = value.type;
    setSlot(slot, created);
    return;
  }
  if (typeof value.value === "string") {
    target.value = text;
    target.type = value.type;
  } else if (typeof target.value === "string") {
    target.value = text;
  } else {
    target.value = options?.delimiter ? parseYamlValue(text) : value.value;
  }
}

function isNilOrEmpty(node: unknown): boolean {
  if (node === undefined || node === null) return true;
  if (isScalar(node)) return node.value === null;
  if (isMap(node)) return node.items.length === 0;
  const items = (node as { items?: unknown[] }).items;
  return Array.isArray(items) && items.length === 0;
}
