// `kpt fn render` over an in-memory package: subpackages are hydrated first (depth-first,
// alphabetical), each package's pipeline sees its own resources plus its subpackages'
// rendered ones, mutators run before validators, and the first failure stops everything.
import { errorMessage } from "../errors";
import { KptfileError, parsePipeline } from "./kptfile";
import {
  loadPackage,
  owningPackage,
  type LoadedPackage,
  type PackageNode,
  type RenderItem,
} from "./package-tree";
import {
  RenderError,
  runPipeline,
  type PipelineContext,
  type RenderFailureReason,
  type RenderStep,
  type Stage,
} from "./pipeline";
import { DEFAULT_RENDER_LIMITS, tooManyFunctionsProblem, type RenderLimits } from "./render-limits";
import { newResultList, noteDroppedResults, type FunctionResultList } from "./results";
import { createFunctionRuntime, type FunctionRuntime } from "./runtime";
import type { PackageFiles, PipelineFunction } from "./types";
import { writePackageFiles } from "./write";

export interface RenderOptions {
  /** How functions run; default: the built-in defaults of the function catalog only. */
  runtime?: FunctionRuntime;
  /** The render's own bounds; default DEFAULT_RENDER_LIMITS. */
  limits?: RenderLimits;
  /** The clock of the render's deadline, in milliseconds; default performance.now. */
  now?: () => number;
}

export interface RenderFailure {
  message: string;
  /** A condition reason: InvalidKptfile, ExecDenied, FunctionUnavailable, a bound's, RenderFailed. */
  reason: RenderFailureReason;
  /** Package directory whose pipeline failed ("" = root). */
  package: string;
  stage?: Stage;
  index?: number;
  function?: PipelineFunction;
}

export interface RenderOutput {
  ok: boolean;
  /**
   * The rendered package. On failure: the package as it stood before the failing function
   * (earlier functions' changes applied) — kpt itself writes nothing, Porch keeps this
   * only with `porch.kpt.dev/push-on-render-failure: "true"`; the caller decides.
   */
  files: PackageFiles;
  results: FunctionResultList;
  steps: RenderStep[];
  error?: RenderFailure;
}

export async function renderPackage(
  files: PackageFiles,
  options: RenderOptions = {},
): Promise<RenderOutput> {
  const results = newResultList();
  const steps: RenderStep[] = [];
  let loaded: LoadedPackage;
  try {
    loaded = loadPackage(files);
  } catch (error) {
    return {
      ok: false,
      files: { ...files },
      results,
      steps,
      error: { message: (error as Error).message, reason: "InvalidKptfile", package: "" },
    };
  }
  const live = new Set<RenderItem>(loaded.items);
  const now = options.now ?? (() => performance.now());
  const ctx: PipelineContext = {
    runtime: options.runtime ?? createFunctionRuntime(),
    files,
    resultList: results,
    steps,
    limits: options.limits ?? DEFAULT_RENDER_LIMITS,
    functions: 0,
    now,
    started: now(),
    replace(before, after) {
      for (const item of before) live.delete(item);
      for (const item of after) live.add(item);
    },
  };
  let error: RenderFailure | undefined;
  try {
    await hydrate(ctx, loaded, loaded.root);
  } catch (caught) {
    error = toFailure(caught);
    results.exitCode = 1;
  }
  noteDroppedResults(results);
  try {
    return { ok: !error, files: writePackageFiles(files, loaded, live), results, steps, error };
  } catch (caught) {
    results.exitCode = 1;
    return { ok: false, files: { ...files }, results, steps, error: error ?? toFailure(caught) };
  }
}

/** Renders `pkg` and returns all resources under it (its own and its subpackages'). */
async function hydrate(
  ctx: PipelineContext,
  loaded: LoadedPackage,
  pkg: PackageNode,
): Promise<RenderItem[]> {
  // As kpt, a package's Kptfile is validated before its subpackages are rendered.
  let pipeline;
  try {
    pipeline = parsePipeline(ctx.files[pkg.kptfilePath], pkg.kptfilePath);
  } catch (error) {
    if (error instanceof KptfileError)
      throw new RenderError(
        error.message,
        pkg.dir,
        undefined,
        undefined,
        undefined,
        "InvalidKptfile",
      );
    throw error;
  }
  ctx.functions += pipeline.mutators.length + pipeline.validators.length;
  const tooMany = tooManyFunctionsProblem(ctx.functions, ctx.limits.maxFunctions);
  if (tooMany)
    throw new RenderError(
      `package ${JSON.stringify(pkg.dir || ".")}: ${tooMany}`,
      pkg.dir,
      undefined,
      undefined,
      undefined,
      "TooManyFunctions",
    );
  const input: RenderItem[] = [];
  for (const child of pkg.children) input.push(...(await hydrate(ctx, loaded, child)));
  input.push(...loaded.items.filter(item => owningPackage(loaded.root, item.path) === pkg));
  return runPipeline(ctx, pkg, pipeline, input);
}

/** A failure's message joins every error result: it goes to renderStatus and a condition. */
const MAX_FAILURE_MESSAGE_CHARS = 4096;

function toFailure(error: unknown): RenderFailure {
  if (error instanceof RenderError) {
    const { message } = error;
    return {
      message:
        message.length <= MAX_FAILURE_MESSAGE_CHARS
          ? message
          : `${message.slice(0, MAX_FAILURE_MESSAGE_CHARS)}… (${message.length - MAX_FAILURE_MESSAGE_CHARS} characters dropped)`,
      reason: error.reason,
      package: error.packageDir,
      stage: error.stage,
      index: error.index,
      function: error.fn,
    };
  }
  return { message: errorMessage(error), reason: "RenderFailed", package: "" };
}
