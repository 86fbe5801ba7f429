// The `replacements` list of an ApplyReplacements config (kustomize types.Replacement).
import { resIdOf, selectorOf, type ResId, type Selector } from "./replacement-select";

export interface FieldOptions {
  delimiter?: string;
  index?: number;
  create?: boolean;
}

export interface SourceSelector extends ResId {
  fieldPath: string;
  options?: FieldOptions;
}

export interface TargetSelector {
  select: Selector;
  reject: Selector[];
  fieldPaths: string[];
  options?: FieldOptions;
}

export interface Replacement {
  source: SourceSelector;
  targets: TargetSelector[];
}

const DEFAULT_FIELD_PATH = "metadata.name";

export function parseReplacements(value: unknown): Replacement[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw convertError("`replacements` must be a list");
  return value.map((entry, i) => {
    if (!isRecord(entry)) throw convertError(`replacements[${i}] must be a mapping`);
    if (!isRecord(entry.source) || !Array.isArray(entry.targets)) {
      throw new Error("replacements must specify a source and at least one target");
    }
    return { source: parseSource(entry.source), targets: entry.targets.map(parseTarget) };
  });
}

function parseSource(value: Record<string, unknown>): SourceSelector {
  return {
    ...resIdOf(value),
    fieldPath:
      typeof value.fieldPath === "string" && value.fieldPath !== ""
        ? value.fieldPath
        : DEFAULT_FIELD_PATH,
    options: parseOptions(value.options),
  };
}

function parseTarget(value: unknown): TargetSelector {
  if (!isRecord(value) || !isRecord(value.select))
    throw new Error("target must specify resources to select");
  const fieldPaths = Array.isArray(value.fieldPaths)
    ? value.fieldPaths.filter((p): p is string => typeof p === "string")
    : [];
  return {
    select: selectorOf(value.select),
    reject: Array.isArray(value.reject) ? value.reject.filter(isRecord).map(selectorOf) : [],
    fieldPaths: fieldPaths.length > 0 ? fieldPaths : [DEFAULT_FIELD_PATH],
    options: parseOptions(value.options),
  };
}

function parseOptions(value: unknown): FieldOptions | undefined {
  if (!isRecord(value)) return undefined;
  const index = value.index;
  if (index !== undefined && (typeof index !== "number" || !Number.isInteger(index))) {
    throw convertError("options.index must be an integer");
  }
  return {
    delimiter: typeof value.delimiter === "string" ? value.delimiter : undefined,
    index: index as number | undefined,
    create: value.create === true,
  };
}

function convertError(reason: string): Error {
  return new Error(`unable to convert functionConfig to replacements:\n${reason}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
