// The bounds every function runs under, whatever its runtime, and the condition reason each one
// gives a render that exceeds it (docs/function-catalog.md, "Bounds").

/** A render that exceeded one of its function's bounds ends Rendered=False with this reason. */
export type FunctionBound =
  | "FunctionTimeout"
  | "FunctionMemoryLimit"
  | "FunctionOutputLimit"
  | "FunctionInputLimit";

export const FUNCTION_BOUNDS: readonly FunctionBound[] = [
  "FunctionTimeout",
  "FunctionMemoryLimit",
  "FunctionOutputLimit",
  "FunctionInputLimit",
];

/** The bounds of one built-in function's run in the worker pool (lib/fn/builtin-pool). */
export interface BuiltinLimits {
  timeoutMs: number;
  /** The worker's V8 heap (old generation), in MiB; a run that needs more kills the worker. */
  maxMemoryMiB: number;
  /** The input ResourceList, serialized. */
  maxInputBytes: number;
  /** The output ResourceList, serialized. */
  maxOutputBytes: number;
}

/**
 * Sized for a watcher whose Pod limit is 512Mi: a 64 MiB heap renders a 1 MiB package (the most
 * a git package may hold) through set-labels and set-namespace, and the pool's default budget
 * (builtin-pool/settings.ts) holds one such run at a time. 4 MiB of ResourceList either way is
 * more than a PackageRevisionResources object can hold (the API server takes at most 3 MiB per
 * request).
 */
export const DEFAULT_BUILTIN_LIMITS: BuiltinLimits = {
  timeoutMs: 10_000,
  maxMemoryMiB: 64,
  maxInputBytes: 4 * 1024 * 1024,
  maxOutputBytes: 4 * 1024 * 1024,
};

/** The input bound every runtime checks before it starts a function. */
export function inputLimitProblem(bytes: number, maxInputBytes: number): string | undefined {
  return bytes > maxInputBytes
    ? `its input ResourceList is ${bytes} bytes, more than maxInputBytes ${maxInputBytes}`
    : undefined;
}
