// Chooses how a pipeline function runs, as the administrator's function catalog says
// (docs/function-catalog.md): the first entry matching the function's image or exec name picks
// a built-in TypeScript implementation, a local executable, or a Pod. A function no entry can
// run fails with the image, the runtime and the reason — never a silent skip.
import { inputLimitProblem, type BuiltinLimits } from "./bounds";
import { BUILTIN_FUNCTIONS } from "./builtins";
import { DEFAULT_BUILTIN_MEMORY_MIB, sharedBuiltinPool, type BuiltinPool } from "./builtin-pool";
import { decodeResponse, encodeRequest } from "./builtin-pool/wire";
import {
  defaultCatalog,
  describeCatalog,
  resolveEntry,
  type CatalogEntry,
  type CatalogView,
  type RuntimeName,
} from "./catalog";
import { runProcess, type ExecLimits } from "./exec";
import type { PodFunction, PodRuntimeSettings } from "./pod-function";
import { toResourceListYaml } from "./resource-list";
import { errorResult, hasErrorResult } from "./results";
import { responseFromOutput } from "./run-output";
import type { BuiltinFunction, PipelineFunction, RunRequest, RunResponse } from "./types";
import { printableName } from "../packages/file-names";

export interface FunctionRunner {
  runtime: RuntimeName;
  run(request: RunRequest): Promise<RunResponse>;
}

/**
 * Makes the runner of one function the catalog runs as a Pod. Called at every resolve (once per
 * function per render), so the Pod runtime keeps and reuses its warm Pods itself.
 */
export type PodRunnerFactory = (fn: PodFunction, settings: PodRuntimeSettings) => FunctionRunner;

/** Where the catalog in use is read, at every resolve: it changes without a restart. */
export interface CatalogSource {
  current(): CatalogView;
}

export interface FunctionRuntimeOptions {
  /** The administrator's catalog; default: the built-in defaults, no exec, no Pods. */
  catalog?: CatalogSource;
  /**
   * Other built-in implementations, run in this thread with no bound: for unit tests of the
   * runtime's own logic. Absent (always, in the operator): lib/fn/builtins, run in the bounded
   * worker pool.
   */
  builtins?: Readonly<Record<string, BuiltinFunction>>;
  /** Where lib/fn/builtins run; default: the process's shared pool. */
  builtinPool?: BuiltinPool;
  /** The shared pool's memory budget, when this runtime starts it (builtin-pool/settings.ts). */
  builtinMemoryMiB?: number;
  /** Absent: functions the catalog runs as Pods cannot run in this process. */
  podRunner?: PodRunnerFactory;
}

export interface FunctionRuntime {
  /** Throws FunctionRuntimeError when no runtime can run `fn`. */
  resolve(fn: PipelineFunction): FunctionRunner;
  /** e.g. `1 entry from ConfigMap …, then the built-in defaults (…); pod runtime available` */
  describe(): string;
}

export class FunctionRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FunctionRuntimeError";
  }
}

/** An `exec` function the catalog does not run. */
export class ExecDeniedError extends FunctionRuntimeError {
  constructor(message: string) {
    super(message);
    this.name = "ExecDeniedError";
  }
}

/** The catalog with no administrator's entries: the built-ins under any registry and tag. */
export const DEFAULT_CATALOG_VIEW: CatalogView = {
  catalog: defaultCatalog(Object.keys(BUILTIN_FUNCTIONS)),
  generation: 0,
};

export function createFunctionRuntime(options: FunctionRuntimeOptions = {}): FunctionRuntime {
  const builtins = options.builtins ?? BUILTIN_FUNCTIONS;
  const defaults: CatalogView = options.builtins
    ? { catalog: defaultCatalog(Object.keys(builtins)), generation: 0 }
    : DEFAULT_CATALOG_VIEW;
  const catalog = options.catalog ?? { current: () => defaults };
  const { podRunner } = options;
  const pool = (): BuiltinPool =>
    options.builtinPool ??
    sharedBuiltinPool(options.builtinMemoryMiB ?? DEFAULT_BUILTIN_MEMORY_MIB);

  const runnerFor = (entry: CatalogEntry, view: CatalogView, fn: PipelineFunction) => {
    const run = entry.run;
    const unavailable = (reason: string) =>
      new FunctionRuntimeError(
        `function ${describeName(fn)} matched ${entry.where} of ${view.catalog.origin}, runtime ${run.runtime}: ${reason}`,
      );
    switch (run.runtime) {
      case "builtin": {
        const builtin = builtins[run.builtin];
        if (!builtin) throw unavailable(`this build has no built-in ${printableName(run.builtin)}`);
        return options.builtins
          ? inProcessRunner(builtin)
          : pooledRunner(pool(), run.builtin, run.limits);
      }
      case "exec":
        return execRunner(run.path, {
          timeoutMs: run.timeoutMs,
          maxOutputBytes: run.maxOutputBytes,
          maxInputBytes: run.maxInputBytes,
        });
      case "pod":
        if (!podRunner) throw unavailable("the pod runtime is not available in this process");
        if (!view.catalog.pod) throw unavailable("the catalog has no pod settings");
        return podRunner({ image: fn.image ?? "", ...run.pod }, view.catalog.pod);
    }
  };

  return {
    describe: () =>
      `${describeCatalog(catalog.current().catalog)}; pod runtime ${podRunner ? "available" : "not available"}`,
    resolve(fn) {
      const view = catalog.current();
      const name = fn.exec ? { exec: fn.exec } : { image: fn.image ?? "" };
      const lookup = resolveEntry(view, name);
      if ("entry" in lookup) return runnerFor(lookup.entry, view, fn);
      throw lookup.reason === "ExecDenied"
        ? new ExecDeniedError(lookup.problem)
        : new FunctionRuntimeError(lookup.problem);
    },
  };
}

const describeName = (fn: PipelineFunction): string =>
  fn.exec ? `exec ${printableName(fn.exec)}` : `image ${printableName(fn.image ?? "")}`;

/**
 * A built-in of lib/fn/builtins in a pool worker, over its documents' text (builtin-pool/wire.ts),
 * within the catalog's limits for it.
 */
function pooledRunner(pool: BuiltinPool, name: string, limits: BuiltinLimits): FunctionRunner {
  return {
    runtime: "builtin",
    async run(request) {
      const input = encodeRequest(request);
      const tooLarge = inputLimitProblem(Buffer.byteLength(input), limits.maxInputBytes);
      if (tooLarge)
        return {
          items: [],
          results: [],
          exitCode: 1,
          failure: tooLarge,
          bound: "FunctionInputLimit",
        };
      const outcome = await pool.run(name, input, limits);
      // A failure (a bound, a worker that stopped) reads as an exec process's would.
      if (outcome.failure) return responseFromOutput(request, outcome);
      return decodeResponse(request, outcome.stdout);
    },
  };
}

/** A test's own built-in, in this thread (see FunctionRuntimeOptions.builtins). */
function inProcessRunner(fn: BuiltinFunction): FunctionRunner {
  return {
    runtime: "builtin",
    async run(request) {
      // Functions mutate what they get, so they work on copies: a failed run leaves no trace.
      const inputs = request.items.map(item => ({ ...item, doc: item.doc.clone() }));
      const sources = new Map(inputs.map((item, i) => [item, i]));
      try {
        const config = request.functionConfig?.clone();
        const output = fn({ items: inputs, functionConfig: config });
        const items = output.items.map(item => ({ ...item, source: sources.get(item) }));
        return { items, results: output.results, exitCode: hasErrorResult(output.results) ? 1 : 0 };
      } catch (error) {
        return { items: [], results: [errorResult((error as Error).message)], exitCode: 1 };
      }
    },
  };
}

function execRunner(executable: string, limits: ExecLimits): FunctionRunner {
  return {
    runtime: "exec",
    async run(request) {
      const stdin = toResourceListYaml(request.items, request.functionConfig);
      return responseFromOutput(request, await runProcess(executable, stdin, limits));
    },
  };
}
