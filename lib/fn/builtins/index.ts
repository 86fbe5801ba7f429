// The built-in TypeScript implementations of catalog functions, by function name (the last
// segment of the image without tag: `gcr.io/kpt-fn/set-namespace:v0.4.1` → set-namespace).
import type { BuiltinFunction } from "../types";
import { applyReplacements } from "./apply-replacements";
import { applySetters } from "./apply-setters";
import { ensureNameSubstring } from "./ensure-name-substring";
import { searchReplace } from "./search-replace";
import { setAnnotations } from "./set-annotations";
import { setLabels } from "./set-labels";
import { setNamespace } from "./set-namespace";

export const BUILTIN_FUNCTIONS: Readonly<Record<string, BuiltinFunction>> = Object.freeze({
  "apply-replacements": applyReplacements,
  "apply-setters": applySetters,
  "ensure-name-substring": ensureNameSubstring,
  "search-replace": searchReplace,
  "set-annotations": setAnnotations,
  "set-labels": setLabels,
  "set-namespace": setNamespace,
});

export {
  applyReplacements,
  applySetters,
  ensureNameSubstring,
  searchReplace,
  setAnnotations,
  setLabels,
  setNamespace,
};
