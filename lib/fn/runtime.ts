// Chooses how a pipeline function runs: a built-in TypeScript implementation selected by
// the image's function name (any registry, any tag), a local executable for `exec:` when the
// administrator's exec policy allows it, and otherwise a clear error — never a silent skip.
import type { Document } from "yaml";
import { BUILTIN_FUNCTIONS } from "./builtins";
import { runProcess, type ExecLimits } from "./exec";
import { EXEC_DISABLED, execDenial, type ExecPolicy } from "./exec-policy";
import { toResourceListYaml } from "./resource-list";
import { errorResult, hasErrorResult, type ResultItem } from "./results";
import { responseFromOutput } from "./run-output";
import type { BuiltinFunction, FnItem, PipelineFunction } from "./types";

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
}

export interface FunctionRunner {
  runtime: "builtin" | "exec" | "pod";
  run(request: RunRequest): Promise<RunResponse>;
}

export interface FunctionRuntimeOptions {
  /** Which `exec:` functions (local executables) may run. Default none, as kpt without --allow-exec. */
  execPolicy?: ExecPolicy;
  exec?: ExecLimits;
  /** Built-in implementations by function name; defaults to all of lib/fn/builtins. */
  builtins?: Readonly<Record<string, BuiltinFunction>>;
}

export interface FunctionRuntime {
  /** Throws FunctionRuntimeError when no runtime can run `fn`. */
  resolve(fn: PipelineFunction): FunctionRunner;
  /** e.g. `builtin (apply-replacements, ...); exec (disabled)` */
  describe(): string;
}

export class FunctionRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FunctionRuntimeError";
  }
}

/** An `exec` function the exec policy does not allow. */
export class ExecDeniedError extends FunctionRuntimeError {
  constructor(message: string) {
    super(message);
    this.name = "ExecDeniedError";
  }
}

/**
 * The function name of an image reference: the last path segment without tag or digest.
 * `gcr.io/kpt-fn/set-namespace:v0.4.1`, `ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4`
 * and `set-namespace` all give `set-namespace`.
 */
export function imageFunctionName(image: string): string {
  const withoutDigest = image.split("@")[0];
  const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf("/") + 1);
  const colon = lastSegment.indexOf(":");
  return colon < 0 ? lastSegment : lastSegment.slice(0, colon);
}

export function createFunctionRuntime(options: FunctionRuntimeOptions = {}): FunctionRuntime {
  const builtins = options.builtins ?? BUILTIN_FUNCTIONS;
  const policy = options.execPolicy ?? EXEC_DISABLED;
  const execState = policy.enabled ? `${policy.allowed.size} allowed` : "disabled";
  const describe = (): string =>
    `builtin (${Object.keys(builtins).sort().join(", ")}); exec (${execState})`;
  return {
    describe,
    resolve(fn) {
      if (fn.exec !== undefined && fn.exec !== "") {
        const denial = execDenial(fn.exec, policy);
        if (denial) throw new ExecDeniedError(denial);
        return execRunner(policy.allowed.get(fn.exec) as string, options.exec ?? {});
      }
      const image = fn.image ?? "";
      const builtin = builtins[imageFunctionName(image)];
      if (builtin) return builtinRunner(builtin);
      throw new FunctionRuntimeError(
        `no runtime can run function image ${JSON.stringify(image)}: available runtimes are ${describe()}`,
      );
    },
  };
}

function builtinRunner(fn: BuiltinFunction): FunctionRunner {
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
