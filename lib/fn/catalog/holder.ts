// The catalog a process uses now. A source (a ConfigMap's watch, a read) hands it what the
// administrator wrote; a valid catalog replaces the one in use, an invalid one is refused and
// the last valid catalog (the defaults, at first) stays in use. Nothing invalid ever becomes
// "no functions", and what was refused stays visible in every failure it could explain.
import { printableName } from "../../packages/file-names";
import {
  defaultCatalog,
  findEntry,
  type CatalogEntry,
  type EntryMatch,
  type FunctionCatalog,
  type FunctionName,
} from "./catalog";
import { matchesImage } from "./image-pattern";
import { parseImageReference } from "./image-reference";
import { CATALOG_KEY, loadFunctionCatalog, type RejectedEntry } from "./load";

export interface RejectedCatalog {
  origin: string;
  problems: string[];
  /** Its entries whose match could be read, with their problems. */
  entries: RejectedEntry[];
}

export interface CatalogView {
  catalog: FunctionCatalog;
  /** Counts the catalogs put in use in this process: a render under an older one may be stale. */
  generation: number;
  /** What the source holds now, when it was refused. */
  rejected?: RejectedCatalog;
}

export type CatalogChange =
  | { kind: "loaded"; catalog: FunctionCatalog }
  | { kind: "defaults" }
  | { kind: "rejected"; rejected: RejectedCatalog }
  | { kind: "unchanged" };

export interface CatalogHolderOptions {
  /** Names the source in catalogs and messages, e.g. `ConfigMap pepr-system/porch-pepr-functions`. */
  origin: string;
  builtinNames: readonly string[];
}

export class CatalogHolder {
  #view: CatalogView;
  /** The data last applied, so a relist of the same object changes nothing. */
  #applied: string | undefined = undefined;

  constructor(private readonly options: CatalogHolderOptions) {
    this.#view = { catalog: defaultCatalog(options.builtinNames), generation: 0 };
  }

  current(): CatalogView {
    return this.#view;
  }

  /**
   * What the source holds now: a ConfigMap's data, or undefined when there is no ConfigMap (the
   * defaults apply). A refused catalog keeps the catalog in use and is reported in the change.
   */
  update(data: Readonly<Record<string, string>> | undefined): CatalogChange {
    const fingerprint = data === undefined ? undefined : JSON.stringify(data[CATALOG_KEY] ?? null);
    if (fingerprint === this.#applied) return { kind: "unchanged" };
    this.#applied = fingerprint;
    const generation = this.#view.generation + 1;
    if (data === undefined) {
      this.#view = { catalog: defaultCatalog(this.options.builtinNames), generation };
      return { kind: "defaults" };
    }
    const text = data[CATALOG_KEY];
    const load =
      text === undefined
        ? { problems: [`has no key ${CATALOG_KEY}`], entries: [] }
        : loadFunctionCatalog(text, this.options);
    if ("problems" in load) {
      const rejected = { origin: this.options.origin, ...load };
      this.#view = { ...this.#view, rejected };
      return { kind: "rejected", rejected };
    }
    this.#view = { catalog: load.catalog, generation };
    return { kind: "loaded", catalog: load.catalog };
  }
}

function entryMatches(match: EntryMatch, fn: FunctionName): boolean {
  if ("exec" in match) return fn.exec !== undefined && fn.exec === match.exec;
  if (fn.exec || fn.image === undefined) return false;
  const ref = parseImageReference(fn.image);
  return !("problem" in ref) && matchesImage(match.image, ref);
}

const MAX_NOTED_PROBLEMS = 5;

/**
 * For a function the catalog in use cannot run: the refused catalog's word on it, when there is
 * one. Names the refused entry that would have matched, else the catalog's first problems.
 */
export function rejectionNote(view: CatalogView, fn: FunctionName): string | undefined {
  const rejected = view.rejected;
  if (!rejected) return undefined;
  const inUse =
    view.catalog.origin === rejected.origin
      ? "its last valid version stays"
      : `${view.catalog.origin} stay`;
  const intro = `the catalog in ${rejected.origin} is invalid, so ${inUse} in use`;
  const entry = rejected.entries.find(e => entryMatches(e.match, fn));
  const problems = entry ? entry.problems : rejected.problems;
  const shown = problems.slice(0, MAX_NOTED_PROBLEMS).join("; ");
  const more =
    problems.length > MAX_NOTED_PROBLEMS
      ? `; and ${problems.length - MAX_NOTED_PROBLEMS} more`
      : "";
  return entry
    ? `${intro}; its entry ${entry.where} for ${printableName(fn.image ?? fn.exec ?? "")} is invalid: ${shown}${more}`
    : `${intro}: ${shown}${more}`;
}

/**
 * The entry that runs `fn` in the catalog in use, or why none does: findEntry's answer with the
 * refused catalog's word on it, if any.
 */
export function resolveEntry(
  view: CatalogView,
  fn: FunctionName,
):
  | { entry: CatalogEntry }
  | { problem: string; reason: "InvalidImage" | "NoEntry" | "ExecDenied" } {
  const lookup = findEntry(view.catalog, fn);
  if ("entry" in lookup) return lookup;
  const note = rejectionNote(view, fn);
  return note ? { ...lookup, problem: `${lookup.problem}; ${note}` } : lookup;
}

/** Why the catalog in use runs no `exec` function of that name, or undefined when it does. */
export function execDenial(view: CatalogView, exec: string): string | undefined {
  const lookup = resolveEntry(view, { exec });
  return "problem" in lookup ? lookup.problem : undefined;
}
