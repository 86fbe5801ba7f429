// Public API of the KRM function runtime (`kpt fn render` for in-memory packages).
export { renderPackage, type RenderFailure, type RenderOptions, type RenderOutput } from "./render";
export { CATALOG_FAILURE_REASONS } from "./pipeline";
export {
  CapacityRetries,
  capacityDecision,
  DEFAULT_CAPACITY_BACKOFF,
  isCapacityReason,
  retryNote,
  type CapacityDecision,
  type CapacityReason,
} from "./capacity-retry";
export type { RenderFailureReason, RenderStep, Stage } from "./pipeline";
export {
  createFunctionRuntime,
  DEFAULT_CATALOG_VIEW,
  ExecDeniedError,
  FunctionRuntimeError,
  type CatalogSource,
  type FunctionRunner,
  type FunctionRuntime,
  type FunctionRuntimeOptions,
  type PodRunnerFactory,
} from "./runtime";
export type { ExecLimits } from "./exec";
export type { PodFunction, PodResourceList, PodRuntimeSettings } from "./pod-function";
export * from "./catalog";
export { BUILTIN_FUNCTIONS } from "./builtins";
export {
  formatResultItem,
  resultListToYaml,
  type FunctionResult,
  type FunctionResultList,
  type ResultItem,
  type Severity,
} from "./results";
export { parsePipeline, KptfileError } from "./kptfile";
export type {
  BuiltinFunction,
  FnInput,
  FnItem,
  FnOutput,
  PackageFiles,
  Pipeline,
  PipelineFunction,
  FunctionSelector,
  RunRequest,
  RunResponse,
} from "./types";
