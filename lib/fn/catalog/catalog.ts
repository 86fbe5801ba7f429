// The function catalog as the runtime uses it: entries in match order, each saying what it
// matches (an image pattern or a Kptfile exec name) and how that runs. The first entry that
// matches decides; the built-in defaults (each built-in under any registry and tag) come last.
import { printableName } from "../../packages/file-names";
import { DEFAULT_BUILTIN_LIMITS, type BuiltinLimits } from "../bounds";
import type { PodFunction, PodRuntimeSettings } from "../pod-function";
import { matchesImage, parseImagePattern, type ImagePattern } from "./image-pattern";
import { parseImageReference, type ImageReference } from "./image-reference";

export type RuntimeName = "builtin" | "exec" | "pod";

export type EntryMatch = { image: ImagePattern } | { exec: string };

export type EntryRun =
  | { runtime: "builtin"; builtin: string; limits: BuiltinLimits }
  | {
      runtime: "exec";
      path: string;
      timeoutMs: number;
      maxOutputBytes: number;
      maxInputBytes: number;
    }
  | { runtime: "pod"; pod: Omit<PodFunction, "image"> };

export interface CatalogEntry {
  /** Where the entry is written, for messages: `functions[2]`, or `the built-in default for set-namespace`. */
  where: string;
  match: EntryMatch;
  run: EntryRun;
  /** One of the built-in defaults, not the administrator's. */
  isDefault?: true;
}

export interface FunctionCatalog {
  /** Where it came from, e.g. `ConfigMap pepr-system/porch-pepr-functions` or `the built-in defaults`. */
  origin: string;
  /** The administrator's entries, then the built-in defaults unless turned off. */
  entries: readonly CatalogEntry[];
  /** Shared by every function Pod; present whenever an entry has runtime pod. */
  pod?: PodRuntimeSettings;
}

/** Each built-in under any registry, path, tag or digest, as the runtime had it before catalogs. */
export function builtinDefaults(
  builtinNames: readonly string[],
  limits: BuiltinLimits = DEFAULT_BUILTIN_LIMITS,
): CatalogEntry[] {
  return builtinNames.map(name => {
    const pattern = parseImagePattern(`**/${name}:*`);
    if ("problem" in pattern) throw new Error(`built-in ${name}: ${pattern.problem}`);
    return {
      where: `the built-in default for ${name}`,
      match: { image: pattern },
      run: { runtime: "builtin", builtin: name, limits },
      isDefault: true,
    };
  });
}

export const DEFAULTS_ORIGIN = "the built-in defaults";

export function defaultCatalog(builtinNames: readonly string[]): FunctionCatalog {
  return { origin: DEFAULTS_ORIGIN, entries: builtinDefaults(builtinNames) };
}

/** What a pipeline names: an image, or a Kptfile `exec:`. */
export interface FunctionName {
  image?: string;
  exec?: string;
}

export type Lookup =
  | { entry: CatalogEntry }
  | { problem: string; reason: "InvalidImage" | "NoEntry" | "ExecDenied" };

/** The entry that decides how `fn` runs (the first that matches), or why there is none. */
export function findEntry(catalog: FunctionCatalog, fn: FunctionName): Lookup {
  if (fn.exec) {
    const entry = catalog.entries.find(e => "exec" in e.match && e.match.exec === fn.exec);
    if (entry) return { entry };
    return {
      reason: "ExecDenied",
      problem: `exec function ${printableName(fn.exec)} is not allowed: the function catalog has no entry for it (ask the administrator)`,
    };
  }
  const image = fn.image ?? "";
  const ref = parseImageReference(image);
  if ("problem" in ref) {
    return {
      reason: "InvalidImage",
      problem: `function image ${printableName(image)} is not a valid image reference: ${ref.problem}`,
    };
  }
  const entry = catalog.entries.find(e => matchesEntry(e.match, ref));
  if (entry) return { entry };
  return {
    reason: "NoEntry",
    problem: `no runtime can run function image ${printableName(image)}: no entry of the function catalog (${describeCatalog(catalog)}) matches it`,
  };
}

/** Whether an entry's match takes this image reference (exec entries never do). */
export function matchesEntry(match: EntryMatch, ref: ImageReference): boolean {
  return "image" in match && matchesImage(match.image, ref);
}

/** e.g. `2 entries from ConfigMap pepr-system/porch-pepr-functions, then the built-in defaults (…)` */
export function describeCatalog(catalog: FunctionCatalog): string {
  const own = catalog.entries.filter(e => !e.isDefault).length;
  const defaults = catalog.entries.flatMap(e =>
    e.isDefault && e.run.runtime === "builtin" ? [e.run.builtin] : [],
  );
  const parts: string[] = [];
  if (catalog.origin !== DEFAULTS_ORIGIN)
    parts.push(`${own} ${own === 1 ? "entry" : "entries"} from ${catalog.origin}`);
  if (defaults.length > 0)
    parts.push(`${parts.length > 0 ? "then " : ""}${DEFAULTS_ORIGIN} (${defaults.join(", ")})`);
  return parts.length > 0 ? parts.join(", ") : "empty";
}
