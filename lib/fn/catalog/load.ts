// Reads an administrator's catalog.yaml: the schema (lib/fn/catalog/catalog.schema.json, applied
// by ./schema.ts), then what a schema cannot say. Every problem is named with its path; a
// catalog with any problem is refused whole, never half-applied.
import { Buffer } from "node:buffer";
import schemaDocument from "./catalog.schema.json";
import { parseYamlDocument } from "../../krm/yaml-parse";
import { DEFAULT_BUILTIN_LIMITS, type BuiltinLimits } from "../bounds";
import {
  DEFAULT_EXEC_MAX_INPUT_BYTES,
  DEFAULT_EXEC_MAX_OUTPUT_BYTES,
  DEFAULT_EXEC_TIMEOUT_MS,
} from "../exec";
import type { PodResourceList, PodRuntimeSettings } from "../pod-function";
import {
  builtinDefaults,
  type CatalogEntry,
  type EntryMatch,
  type FunctionCatalog,
} from "./catalog";
import { catalogFormats, parseDuration, parseMemoryMiB } from "./formats";
import { parseImagePattern } from "./image-pattern";
import { compileSchema, type Schema } from "./schema";

/** The ConfigMap key that holds the catalog. */
export const CATALOG_KEY = "catalog.yaml";
export const MAX_CATALOG_BYTES = 256 * 1024;
const MAX_PROBLEMS = 50;
const MAX_ALIASES = 100;

export const DEFAULT_POD_TIMEOUT_MS = 60_000;
export const DEFAULT_POD_IDLE_MS = 10 * 60_000;

/** The document's shape once the schema accepted it. */
interface CatalogDocument {
  builtinDefaults?: boolean;
  functions?: EntryDocument[];
  builtinLimits?: LimitsDocument;
  pod?: PodRuntimeSettings;
}

interface LimitsDocument {
  timeout?: string;
  maxMemory?: string;
  maxInputBytes?: number;
  maxOutputBytes?: number;
}

/** A builtin entry's limits: its own, else the catalog's `builtinLimits`, else the defaults. */
function builtinLimits(doc: LimitsDocument | undefined, base: BuiltinLimits): BuiltinLimits {
  return {
    timeoutMs: parseDuration(doc?.timeout ?? "") ?? base.timeoutMs,
    maxMemoryMiB: parseMemoryMiB(doc?.maxMemory ?? "") ?? base.maxMemoryMiB,
    maxInputBytes: doc?.maxInputBytes ?? base.maxInputBytes,
    maxOutputBytes: doc?.maxOutputBytes ?? base.maxOutputBytes,
  };
}

interface EntryDocument {
  image?: string;
  exec?: string;
  runtime: "builtin" | "exec" | "pod";
  builtin?: string;
  limits?: LimitsDocument;
  executable?: { path: string; timeout?: string; maxOutputBytes?: number; maxInputBytes?: number };
  pod?: {
    entrypoint: string[];
    resources?: { requests?: PodResourceList; limits?: PodResourceList };
    timeout?: string;
    idle?: string;
  };
}

/** An entry of a refused catalog whose match could be read, with its own problems. */
export interface RejectedEntry {
  where: string;
  match: EntryMatch;
  problems: string[];
}

export type CatalogLoad =
  | { catalog: FunctionCatalog }
  | { problems: string[]; entries: RejectedEntry[] };

export interface LoadOptions {
  /** Named in the catalog, e.g. `ConfigMap pepr-system/porch-pepr-functions`. */
  origin: string;
  builtinNames: readonly string[];
}

/** The YAML as plain data, or the reasons it cannot be read. */
function readYaml(text: string): { value: unknown } | { problems: string[] } {
  if (Buffer.byteLength(text, "utf8") > MAX_CATALOG_BYTES)
    return { problems: [`${CATALOG_KEY}: is larger than ${MAX_CATALOG_BYTES} bytes`] };
  const doc = parseYamlDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0)
    return { problems: doc.errors.map(e => `${CATALOG_KEY}: ${e.message.split("\n")[0]}`) };
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIASES }) ?? {} };
  } catch (error) {
    return { problems: [`${CATALOG_KEY}: ${(error as Error).message}`] };
  }
}

/** The built-in an entry runs: its `builtin`, or the name its image pattern or exec fixes. */
function impliedBuiltin(entry: EntryDocument, names: readonly string[]): string | undefined {
  if (entry.builtin) return entry.builtin;
  const pattern = typeof entry.image === "string" ? parseImagePattern(entry.image) : undefined;
  const last =
    pattern && !("problem" in pattern) ? pattern.segments[pattern.segments.length - 1] : entry.exec;
  return typeof last === "string" && names.includes(last) ? last : undefined;
}

/**
 * What the schema cannot say: which built-in runs, and that Pods have their shared settings.
 * Also run on a document the schema refused, so one reading names every problem: hence the
 * care with types.
 */
function semanticProblems(doc: unknown, names: readonly string[]): string[] {
  const problems: string[] = [];
  const { functions, pod } = (doc ?? {}) as { functions?: unknown; pod?: unknown };
  const entries = Array.isArray(functions) ? (functions as unknown[]).slice(0, 128) : [];
  entries.forEach((raw, i) => {
    const entry = (typeof raw === "object" && raw !== null ? raw : {}) as EntryDocument;
    const pattern = typeof entry.image === "string" ? parseImagePattern(entry.image) : undefined;
    if (pattern && "problem" in pattern) return; // the schema names the pattern's problem
    if (entry.runtime === "builtin" && entry.builtin === undefined && !impliedBuiltin(entry, names))
      problems.push(
        `functions[${i}].builtin: is required: ${entry.exec === undefined ? "the pattern's last segment" : "the exec name"} is not the name of a built-in (${names.join(", ")})`,
      );
  });
  const firstPod = entries.findIndex(e => (e as EntryDocument | null)?.runtime === "pod");
  if (firstPod >= 0 && pod === undefined)
    problems.push(`pod: is required: functions[${firstPod}] has runtime pod`);
  return problems;
}

function toEntry(
  entry: EntryDocument,
  i: number,
  names: readonly string[],
  limits: BuiltinLimits,
): CatalogEntry {
  const where = `functions[${i}]`;
  let match: EntryMatch;
  if (entry.image !== undefined) {
    const image = parseImagePattern(entry.image);
    if ("problem" in image) throw new Error(`${where}: ${image.problem}`); // the schema checked it
    match = { image };
  } else {
    match = { exec: entry.exec ?? "" };
  }
  switch (entry.runtime) {
    case "builtin":
      return {
        where,
        match,
        run: {
          runtime: "builtin",
          builtin: impliedBuiltin(entry, names)!,
          limits: builtinLimits(entry.limits, limits),
        },
      };
    case "exec": {
      const executable = entry.executable!;
      return {
        where,
        match,
        run: {
          runtime: "exec",
          path: executable.path,
          timeoutMs: parseDuration(executable.timeout ?? "") ?? DEFAULT_EXEC_TIMEOUT_MS,
          maxOutputBytes: executable.maxOutputBytes ?? DEFAULT_EXEC_MAX_OUTPUT_BYTES,
          maxInputBytes: executable.maxInputBytes ?? DEFAULT_EXEC_MAX_INPUT_BYTES,
        },
      };
    }
    case "pod": {
      const pod = entry.pod!;
      return {
        where,
        match,
        run: {
          runtime: "pod",
          pod: {
            entrypoint: pod.entrypoint,
            resources: pod.resources ?? {},
            timeoutMs: parseDuration(pod.timeout ?? "") ?? DEFAULT_POD_TIMEOUT_MS,
            idleMs: parseDuration(pod.idle ?? "") ?? DEFAULT_POD_IDLE_MS,
          },
        },
      };
    }
  }
}

/** The entries of a refused catalog whose image or exec could be read, with their problems. */
function rejectedEntries(value: unknown, problems: string[]): RejectedEntry[] {
  const functions = (value as { functions?: unknown }).functions;
  if (!Array.isArray(functions)) return [];
  const entries: RejectedEntry[] = [];
  functions.slice(0, 128).forEach((raw: unknown, i) => {
    const where = `functions[${i}]`;
    const own = problems.filter(p => p.startsWith(`${where}.`) || p.startsWith(`${where}:`));
    const { image, exec } = (raw ?? {}) as { image?: unknown; exec?: unknown };
    if (own.length === 0) return;
    if (typeof image === "string") {
      const pattern = parseImagePattern(image);
      if (!("problem" in pattern))
        entries.push({ where, match: { image: pattern }, problems: own });
    } else if (typeof exec === "string" && exec !== "") {
      entries.push({ where, match: { exec }, problems: own });
    }
  });
  return entries;
}

const bounded = (problems: string[]): string[] =>
  problems.length <= MAX_PROBLEMS
    ? problems
    : [...problems.slice(0, MAX_PROBLEMS), `and ${problems.length - MAX_PROBLEMS} more problems`];

/** Reads a catalog: the catalog in match order, or every problem (a refused catalog is not used). */
export function loadFunctionCatalog(text: string, options: LoadOptions): CatalogLoad {
  const read = readYaml(text);
  if ("problems" in read) return { problems: bounded(read.problems), entries: [] };
  const validator = compileSchema(schemaDocument as Schema, catalogFormats(options.builtinNames));
  const problems = [
    ...validator.validate(read.value, CATALOG_KEY),
    ...semanticProblems(read.value, options.builtinNames),
  ];
  if (problems.length > 0)
    return { problems: bounded(problems), entries: rejectedEntries(read.value, problems) };
  const doc = read.value as CatalogDocument;
  const limits = builtinLimits(doc.builtinLimits, DEFAULT_BUILTIN_LIMITS);
  const entries = (doc.functions ?? []).map((e, i) => toEntry(e, i, options.builtinNames, limits));
  if (doc.builtinDefaults !== false) entries.push(...builtinDefaults(options.builtinNames, limits));
  return { catalog: { origin: options.origin, entries, ...(doc.pod && { pod: doc.pod }) } };
}

/** The problem list as one message, e.g. for an Event or a log line. */
export function formatProblems(problems: readonly string[]): string {
  return problems.map(p => p.replace(/[\r\n]+/g, " ")).join("; ");
}
