// Runs one package's Kptfile pipeline — mutators in order, then validators — over the
// package's resources (its own plus its subpackages' rendered ones), as kpt's runPipeline.
import { krmMeta } from "../krm/documents";
import { FUNCTION_BOUNDS, type FunctionBound } from "./bounds";
import type { CapacityReason } from "./capacity-retry";
import { RENDER_TIMEOUT_VARIABLE, type RenderBound, type RenderLimits } from "./render-limits";
import { fileNameProblem, printableName } from "../packages/file-names";
import { describeFunction } from "./kptfile";
import { joinPath, relativeTo, type PackageNode, type RenderItem } from "./package-tree";
import { resolveFunctionConfig } from "./function-config";
import { addFunctionResult, type FunctionResult, type FunctionResultList } from "./results";
import type { RuntimeName } from "./catalog";
import { ExecDeniedError, FunctionRuntimeError } from "./runtime";
import type { FunctionRunner, FunctionRuntime } from "./runtime";
import { hasSelection, mergeSelection, selectItems } from "./selectors";
import type { PackageFiles, Pipeline, PipelineFunction, RunItem, RunResponse } from "./types";

export type Stage = "mutator" | "validator";

const UNSET_INDEX = -1;

/** One function run, in execution order; `result` is the same object as in the ResultList. */
export interface RenderStep {
  /** Package directory relative to the root ("" for the root package). */
  package: string;
  stage: Stage;
  /** Position in `pipeline.mutators` / `pipeline.validators`. */
  index: number;
  function: PipelineFunction;
  runtime: RuntimeName;
  result: FunctionResult;
}

/**
 * Why a render failed, as a condition reason: the package itself is wrong, the function catalog
 * runs no such exec function (ExecDenied) or cannot run that image (FunctionUnavailable), a
 * function exceeded one of its bounds (lib/fn/bounds.ts), shared capacity was busy
 * (lib/fn/capacity-retry.ts), or a function failed. The catalog reasons and the bounds (the
 * catalog sets them) may heal when the administrator changes it; capacity, by itself.
 */
export type RenderFailureReason =
  | "InvalidKptfile"
  | "ExecDenied"
  | "FunctionUnavailable"
  | FunctionBound
  | RenderBound
  | CapacityReason
  | "RenderFailed";

/** The render failures a change of the function catalog may heal. */
export const CATALOG_FAILURE_REASONS: readonly RenderFailureReason[] = [
  "ExecDenied",
  "FunctionUnavailable",
  ...FUNCTION_BOUNDS,
];

export class RenderError extends Error {
  constructor(
    message: string,
    readonly packageDir: string,
    readonly stage?: Stage,
    readonly index?: number,
    readonly fn?: PipelineFunction,
    readonly reason: RenderFailureReason = "RenderFailed",
  ) {
    super(message);
    this.name = "RenderError";
  }
}

export interface PipelineContext {
  runtime: FunctionRuntime;
  files: PackageFiles;
  resultList: FunctionResultList;
  steps: RenderStep[];
  limits: RenderLimits;
  /** Functions the Kptfiles read so far list together. */
  functions: number;
  /** Milliseconds since some fixed point, performance.now() outside tests. */
  now(): number;
  /** When the render started, by now(). */
  started: number;
  /** Called after every successful mutator so partial output is available on failure. */
  replace(before: readonly RenderItem[], after: readonly RenderItem[]): void;
}

/** Returns the mutated resources; throws RenderError on the first failing function. */
export async function runPipeline(
  ctx: PipelineContext,
  pkg: PackageNode,
  pipeline: Pipeline,
  input: RenderItem[],
): Promise<RenderItem[]> {
  let current = input;
  for (const [index, fn] of pipeline.mutators.entries()) {
    const selected = hasSelection(fn) ? selectItems(current, fn) : current;
    const response = await runFunction(ctx, pkg, "mutator", index, fn, selected, current);
    const output = response.items.map(item =>
      toRenderItem(item, selected, pkg, "mutator", index, fn),
    );
    const next = numberNewItems(
      hasSelection(fn) ? mergeSelection(current, selected, output) : output,
    );
    ctx.replace(current, next);
    current = next;
  }
  for (const [index, fn] of pipeline.validators.entries()) {
    await runFunction(ctx, pkg, "validator", index, fn, selectItems(current, fn), current);
  }
  return current;
}

async function runFunction(
  ctx: PipelineContext,
  pkg: PackageNode,
  stage: Stage,
  index: number,
  fn: PipelineFunction,
  selected: readonly RenderItem[],
  current: readonly RenderItem[],
): Promise<RunResponse> {
  const fail = (reason: string, code?: RenderFailureReason, runtime?: RuntimeName): RenderError =>
    new RenderError(
      `package ${JSON.stringify(pkg.dir || ".")}: ${stage} ${index} (${describeFunction(fn)}${runtime ? `, runtime ${runtime}` : ""}): ${reason}`,
      pkg.dir,
      stage,
      index,
      fn,
      code,
    );
  const elapsed = ctx.now() - ctx.started;
  if (elapsed > ctx.limits.timeoutMs)
    throw fail(
      `the render has run for ${Math.round(elapsed)} ms, more than ${ctx.limits.timeoutMs} ms (${RENDER_TIMEOUT_VARIABLE})`,
      "RenderTimeout",
    );
  let runner: FunctionRunner;
  let functionConfig;
  try {
    runner = ctx.runtime.resolve(fn);
    functionConfig = resolveFunctionConfig(fn, pkg.dir, current, ctx.files);
  } catch (error) {
    throw fail((error as Error).message, catalogReason(error));
  }
  const items = selected.map(item => ({
    doc: item.doc,
    path: relativeTo(pkg.dir, item.path),
    index: item.index,
  }));
  const started = ctx.now();
  const response = await runner.run({ items, functionConfig });
  const durationMs = Math.round(ctx.now() - started);
  const { runtime } = runner;
  const result: FunctionResult = fn.exec
    ? { exec: fn.exec, runtime, durationMs, exitCode: response.exitCode }
    : { image: fn.image, runtime, durationMs, exitCode: response.exitCode };
  if (response.stderr) result.stderr = response.stderr;
  if (response.results.length > 0) result.results = response.results;
  addFunctionResult(ctx.resultList, result);
  ctx.steps.push({ package: pkg.dir, stage, index, function: fn, runtime, result });
  if (response.exitCode !== 0)
    throw fail(failureReason(response), response.bound ?? response.capacity, runtime);
  return response;
}

/** A catalog that cannot run the function is its own reason; anything else fails the render. */
function catalogReason(error: unknown): RenderFailureReason | undefined {
  if (error instanceof ExecDeniedError) return "ExecDenied";
  if (error instanceof FunctionRuntimeError) return "FunctionUnavailable";
  return undefined;
}

function failureReason(response: RunResponse): string {
  const errors = response.results.filter(r => r.severity === "error").map(r => r.message);
  const parts = [response.failure, ...errors].filter((part): part is string => !!part);
  if (parts.length === 0) parts.push(`function failed with exit code ${response.exitCode}`);
  const stderr = response.stderr?.trim();
  if (response.failure && stderr) parts.push(`stderr: ${stderr.split("\n").slice(-5).join("\n")}`);
  return parts.join("; ");
}

function toRenderItem(
  item: RunItem,
  selected: readonly RenderItem[],
  pkg: PackageNode,
  stage: Stage,
  index: number,
  fn: PipelineFunction,
): RenderItem {
  const base = item.source !== undefined ? selected[item.source] : undefined;
  const given =
    item.path !== undefined ? packagePath(pkg, item.path, stage, index, fn) : base?.path;
  const path = given ?? joinPath(pkg.dir, defaultPath(item));
  // A path from the function (or from a resource name it made up) becomes a file in git.
  const problem = fileNameProblem(path);
  if (problem) {
    throw new RenderError(
      `package ${JSON.stringify(pkg.dir || ".")}: ${stage} ${index} (${describeFunction(fn)}): ` +
        `function wrote a resource to an unsafe file name: ${printableName(path)} ${problem}`,
      pkg.dir,
      stage,
      index,
      fn,
    );
  }
  return {
    doc: item.doc,
    path,
    index: item.index ?? base?.index ?? UNSET_INDEX,
    origin: base?.origin,
  };
}

/** Resources a function added without an index go after the others in their file. */
function numberNewItems(items: RenderItem[]): RenderItem[] {
  const next = new Map<string, number>();
  for (const item of items) {
    if (item.index !== UNSET_INDEX)
      next.set(item.path, Math.max(next.get(item.path) ?? 0, item.index + 1));
  }
  return items.map(item => {
    if (item.index !== UNSET_INDEX) return item;
    const index = next.get(item.path) ?? 0;
    next.set(item.path, index + 1);
    return { ...item, index };
  });
}

/** A path a function gave, made root-relative; functions must stay inside their package. */
function packagePath(
  pkg: PackageNode,
  path: string,
  stage: Stage,
  index: number,
  fn: PipelineFunction,
): string {
  const segments = path.split("/").filter(s => s !== "" && s !== ".");
  if (path.startsWith("/") || segments.includes("..") || segments.length === 0) {
    throw new RenderError(
      `package ${JSON.stringify(pkg.dir || ".")}: ${stage} ${index} (${describeFunction(fn)}): ` +
        `function must not modify resources outside of package: resource has path ${JSON.stringify(path)}`,
      pkg.dir,
      stage,
      index,
      fn,
    );
  }
  return joinPath(pkg.dir, segments.join("/"));
}

/** kyaml's default location for a new resource: `[<namespace>/]<kind>_<name>.yaml`. */
function defaultPath(item: RunItem): string {
  const meta = krmMeta(item.doc);
  const file = `${(meta?.kind ?? "resource").toLowerCase()}_${(meta?.name ?? "unnamed").toLowerCase()}.yaml`;
  return meta?.namespace ? `${meta.namespace}/${file}` : file;
}
