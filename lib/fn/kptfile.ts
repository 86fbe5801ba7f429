// The render's view of the one Kptfile parse (lib/kpt/kptfile.ts): its `pipeline`, validated the
// way kpt does before rendering (pkg/api/kptfile/v1 validation: image xor exec, configMap xor
// configPath, configPath relative and inside the package).
import { type Alias, type Document, isAlias, isMap, isScalar, isSeq, visit } from "yaml";
import { KptfileError, parseKptfile } from "../kpt/kptfile";
import { getField } from "../krm/nodes";
import type { FunctionSelector, Pipeline, PipelineFunction } from "./types";
import { scalarText } from "./yaml-nodes";

export { KptfileError } from "../kpt/kptfile";

type Stage = "mutators" | "validators";

/** Parses a Kptfile's pipeline; throws KptfileError naming the file and field on bad input. */
export function parsePipeline(kptfileText: string, kptfilePath: string): Pipeline {
  const kptfile = parseKptfile(kptfileText, kptfilePath);
  const walk: Walk = { nodes: MAX_PIPELINE_NODES, anchors: anchorTargets(kptfile.doc) };
  const pipeline = asWritten(getField(kptfile.root, "pipeline"), walk, 0);
  if (walk.nodes < 0)
    throw invalid(
      kptfilePath,
      "pipeline",
      `has more than ${MAX_PIPELINE_NODES} nodes, or is nested more than ${MAX_PIPELINE_DEPTH} deep, once its aliases are expanded`,
    );
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

/**
 * Plain data with every scalar read as written, as YAML's failsafe schema reads it ("1.10"
 * stays "1.10", as Go's map[string]string decoding does for configMap values).
 */
/**
 * Nodes a pipeline may have with its aliases expanded, and how deep. Each `*alias` copies its
 * anchor's whole subtree, so a few hundred bytes of nested anchors expand to billions of nodes
 * (a "billion laughs"), and an alias inside its own anchor never ends; this runs in the
 * admission webhook and on the watcher's event loop. A real pipeline has a few hundred nodes.
 */
export const MAX_PIPELINE_NODES = 100_000;
export const MAX_PIPELINE_DEPTH = 256;

interface Walk {
  /** Nodes left; below 0, the walk stopped. */
  nodes: number;
  anchors: Map<Alias, unknown>;
}

/**
 * Each alias's node, found in one pass in document order (an alias names the nearest anchor
 * before it): the library's own `resolve` searches the whole document for every alias.
 */
function anchorTargets(doc: Document): Map<Alias, unknown> {
  const latest = new Map<string, unknown>();
  const targets = new Map<Alias, unknown>();
  visit(doc, {
    Alias: (_key, alias) => void targets.set(alias, latest.get(alias.source)),
    Node: (_key, node) => void (node.anchor && latest.set(node.anchor, node)),
  });
  return targets;
}

/** The node as plain values; past the walk's bounds (`nodes` below 0) it stops. */
function asWritten(node: unknown, walk: Walk, depth: number): unknown {
  if (--walk.nodes < 0 || depth > MAX_PIPELINE_DEPTH) {
    walk.nodes = -1;
    return undefined;
  }
  if (isAlias(node)) return asWritten(walk.anchors.get(node), walk, depth + 1);
  if (isScalar(node)) return scalarText(node);
  if (isSeq(node)) {
    const out: unknown[] = [];
    for (const item of node.items) {
      if (walk.nodes < 0) break;
      out.push(asWritten(item, walk, depth + 1));
    }
    return out;
  }
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      if (walk.nodes < 0) break;
      out[String(asWritten(pair.key, walk, depth + 1))] = asWritten(pair.value, walk, depth + 1);
    }
    return out;
  }
  return undefined;
}

/** Read as written, an empty value (`configMap:`) is "". */
function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

function invalid(file: string, field: string, reason: string): KptfileError {
  return new KptfileError(
    file,
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
