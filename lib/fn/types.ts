// Shared shapes of the function runtime: the Kptfile pipeline as declared, and what a
// function receives and returns (the KRM ResourceList, with documents kept as `yaml`
// Documents so comments and field order survive).
import type { Document } from "yaml";
import type { FunctionBound } from "./bounds";
import type { CapacityReason } from "./capacity-retry";
import type { ResultItem } from "./results";

/** A package: file path (relative to the root package, "/"-separated) → file content. */
export type PackageFiles = Record<string, string>;

/** kpt Kptfile Selector: every non-empty field must match. */
export interface FunctionSelector {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** One entry of `pipeline.mutators` / `pipeline.validators` in a Kptfile. */
export interface PipelineFunction {
  image?: string;
  exec?: string;
  name?: string;
  configPath?: string;
  configMap?: Record<string, string>;
  selectors?: FunctionSelector[];
  exclude?: FunctionSelector[];
}

export interface Pipeline {
  mutators: PipelineFunction[];
  validators: PipelineFunction[];
}

/**
 * A resource handed to a function. `path` is the file path relative to the package whose
 * pipeline runs (what kpt puts in `internal.config.kubernetes.io/path`), `index` the
 * position of the document in that file.
 */
export interface FnItem {
  doc: Document;
  path: string;
  index: number;
}

export interface FnInput {
  items: FnItem[];
  /** undefined when the Kptfile gives neither configMap nor configPath. */
  functionConfig: Document | undefined;
}

export interface FnOutput {
  items: FnItem[];
  results: ResultItem[];
}

/** A function implemented in TypeScript; it may mutate the documents it is given. */
export type BuiltinFunction = (input: FnInput) => FnOutput;

/** One function run: its input (lib/fn/runtime.ts chooses the runner that takes it). */
export interface RunRequest {
  items: FnItem[];
  functionConfig: Document | undefined;
}

/** An output resource; `source` is the index of the input it came from, if any. */
export interface RunItem {
  doc: Document;
  path?: string;
  index?: number;
  source?: number;
}

export interface RunResponse {
  items: RunItem[];
  results: ResultItem[];
  exitCode: number;
  stderr?: string;
  /** Why the run failed when the results alone do not say (exit code, timeout, bad output). */
  failure?: string;
  /** Set when `failure` is a bound the function exceeded. */
  bound?: FunctionBound;
  /** Set when the run failed for want of shared capacity, not for its input. */
  capacity?: CapacityReason;
}
