// Reads the `pipeline` of a Kptfile and validates it the way kpt does before rendering
// (pkg/api/kptfile/v1 validation: image xor exec, configMap xor configPath, configPath
// relative and inside the package).
import { parseDocument } from "yaml";
import type { FunctionSelector, Pipeline, PipelineFunction } from "./types";

export class KptfileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KptfileError";
  }
}

type Stage = "mutators" | "validators";

/** Parses a Kptfile's pipeline; throws KptfileError naming the file and field on bad input. */
export function parsePipeline(kptfileText: string, kptfilePath: string): Pipeline {
  // failsafe schema: every scalar is read as written ("1.10" stays "1.10"), as Go's
  // map[string]string decoding does for configMap values.
  const doc = parseDocument(kptfileText, { schema: "failsafe" });
  if (doc.errors.length > 0) {
    throw new KptfileError(`${kptfilePath}: invalid YAML: ${doc.errors[0].message}`);
  }
  const root: unknown = doc.toJS();
  const pipeline = isRecord(root) ? root.pipeline : undefined;
  if (isAbsent(pipeline)) return { mutators: [], validators: [] };
  if (!isRecord(pipeline)) throw invalid(kptfilePath, "pipeline", "must be a mapping");
  return {
    mutators: parseStage(pipeline.mutators, "mutators", kptfilePath),
    validators: parseStage(pipeline.validators, "validators", kptfilePath),
  };
}

function parseStage(value: unknown, stage: Stage, file: string): PipelineFunction[] {
  if (isAbsent(value)) return [];
  if (!Array.isArray(value)) throw invalid(file, `pipeline.${stage}`, "must be a list");
  return value.map((entry, index) => parseFunction(entry, `pipeline.${stage}[${index}]`, file));
}

function parseFunction(value: unknown, field: string, file: string): PipelineFunction {
  if (!isRecord(value)) throw invalid(file, field, "must be a mapping");
  const fn: PipelineFunction = {
    image: optionalString(value.image, `${field}.image`, file),
    exec: optionalString(value.exec, `${field}.exec`, file),
    name: optionalString(value.name, `${field}.name`, file),
    configPath: optionalString(value.configPath, `${field}.configPath`, file),
    configMap: optionalStringMap(value.configMap, `${field}.configMap`, file),
    selectors: parseSelectors(value.selectors, `${field}.selectors`, file),
    exclude: parseSelectors(value.exclude, `${field}.exclude`, file),
  };
  validateFunction(fn, field, file);
  return fn;
}

function validateFunction(fn: PipelineFunction, field: string, file: string): void {
  if (!fn.image && !fn.exec) {
    throw invalid(file, field, "must specify a function (`image` or `exec`) to execute");
  }
  if (fn.image && fn.exec) {
    throw invalid(file, field, "must not specify both `image` and `exec` at the same time");
  }
  if (fn.configMap && Object.keys(fn.configMap).length > 0 && fn.configPath) {
    throw invalid(
      file,
      field,
      "functionConfig must not specify both `configMap` and `configPath` at the same time",
    );
  }
  if (fn.configPath !== undefined) {
    const reason = configPathProblem(fn.configPath);
    if (reason) throw invalid(file, `${field}.configPath`, reason);
  }
}

function configPathProblem(path: string): string | undefined {
  if (path.trim() === "") return "path must not be empty";
  if (path.startsWith("/")) return "path must be relative";
  if (path.split("/").includes("..")) return "path must not be outside the package";
  return undefined;
}

function parseSelectors(
  value: unknown,
  field: string,
  file: string,
): FunctionSelector[] | undefined {
  if (isAbsent(value)) return undefined;
  if (!Array.isArray(value)) throw invalid(file, field, "must be a list");
  return value.map((entry, index) => {
    const at = `${field}[${index}]`;
    if (!isRecord(entry)) throw invalid(file, at, "must be a mapping");
    return {
      apiVersion: optionalString(entry.apiVersion, `${at}.apiVersion`, file),
      kind: optionalString(entry.kind, `${at}.kind`, file),
      name: optionalString(entry.name, `${at}.name`, file),
      namespace: optionalString(entry.namespace, `${at}.namespace`, file),
      labels: optionalStringMap(entry.labels, `${at}.labels`, file),
      annotations: optionalStringMap(entry.annotations, `${at}.annotations`, file),
    };
  });
}

function optionalString(value: unknown, field: string, file: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw invalid(file, field, "must be a string");
  return value;
}

function optionalStringMap(
  value: unknown,
  field: string,
  file: string,
): Record<string, string> | undefined {
  if (isAbsent(value)) return undefined;
  if (!isRecord(value)) throw invalid(file, field, "must be a mapping of strings");
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") throw invalid(file, `${field}.${key}`, "must be a string");
    out[key] = entry;
  }
  return out;
}

/** Under the failsafe schema an empty value (`configMap:`) reads as "". */
function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

function invalid(file: string, field: string, reason: string): KptfileError {
  return new KptfileError(
    `Kptfile ${JSON.stringify(file)} is invalid: field \`${field}\`: ${reason}`,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short label for messages: the function's name, image or exec command. */
export function describeFunction(fn: PipelineFunction): string {
  return fn.image ?? fn.exec ?? fn.name ?? "<unnamed function>";
}
