// kpt's function `selectors` / `exclude`: a resource is selected when it matches any
// selector (all fields of one selector must match) and no non-empty exclude selector.
import { krmMeta } from "../krm/documents";
import type { RenderItem } from "./package-tree";
import type { FunctionSelector, PipelineFunction } from "./types";
import { annotationsOf, labelsOf } from "./yaml-nodes";

export function hasSelection(fn: PipelineFunction): boolean {
  return (fn.selectors?.length ?? 0) > 0 || (fn.exclude?.length ?? 0) > 0;
}

/** The subset of `items` the function should see, in input order. */
export function selectItems(items: readonly RenderItem[], fn: PipelineFunction): RenderItem[] {
  const selectors = fn.selectors ?? [];
  const exclusions = (fn.exclude ?? []).filter(selector => !isEmptySelector(selector));
  return items.filter(item => {
    if (selectors.length > 0 && !selectors.some(selector => matches(item, selector))) return false;
    return !exclusions.some(selector => matches(item, selector));
  });
}

/**
 * After a mutator ran on a selection: resources that were not selected stay as they were,
 * the function's output replaces the selection (kpt's MergeWithInput).
 */
export function mergeSelection(
  all: readonly RenderItem[],
  selected: readonly RenderItem[],
  output: readonly RenderItem[],
): RenderItem[] {
  const chosen = new Set(selected);
  return [...all.filter(item => !chosen.has(item)), ...output];
}

export function matches(item: RenderItem, selector: FunctionSelector): boolean {
  const meta = krmMeta(item.doc);
  if (!meta) return false;
  if (selector.apiVersion && selector.apiVersion !== meta.apiVersion) return false;
  if (selector.kind && selector.kind !== meta.kind) return false;
  if (selector.name && selector.name !== meta.name) return false;
  if (selector.namespace && selector.namespace !== meta.namespace) return false;
  return (
    containsAll(labelsOf(item.doc), selector.labels) &&
    containsAll(annotationsOf(item.doc), selector.annotations)
  );
}

function containsAll(
  actual: Record<string, string>,
  wanted: Record<string, string> | undefined,
): boolean {
  return Object.entries(wanted ?? {}).every(([key, value]) => actual[key] === value);
}

function isEmptySelector(selector: FunctionSelector): boolean {
  return (
    !selector.apiVersion &&
    !selector.kind &&
    !selector.name &&
    !selector.namespace &&
    Object.keys(selector.labels ?? {}).length === 0 &&
    Object.keys(selector.annotations ?? {}).length === 0
  );
}
