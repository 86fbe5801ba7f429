// The built-in pool's one setting: the heap its workers may hold together. A worker costs about
// 20 MiB of the process's memory beside its heap (measured: two 64 MiB workers at their limit
// add 150-160 MB to the watcher's RSS), so the default keeps a 512Mi watcher within 60 % of its
// limit while one render runs into its bound.
import { MAX_HEAP_MIB, MIN_HEAP_MIB, parseMemoryMiB } from "../catalog/formats";

export const BUILTIN_MEMORY_VARIABLE = "PORCH_PEPR_BUILTIN_MEMORY";

/** One default-sized run (64 MiB) at a time, or two of 48 MiB, or one of 96 MiB. */
export const DEFAULT_BUILTIN_MEMORY_MIB = 96;

export interface BuiltinPoolSettings {
  memoryMiB: number;
  warnings: string[];
}

/** PORCH_PEPR_BUILTIN_MEMORY (`96Mi`, `1Gi`); a value that is not a memory quantity warns. */
export function builtinPoolSettings(env: Record<string, string | undefined>): BuiltinPoolSettings {
  const text = env[BUILTIN_MEMORY_VARIABLE];
  if (text === undefined || text === "")
    return { memoryMiB: DEFAULT_BUILTIN_MEMORY_MIB, warnings: [] };
  const mib = parseMemoryMiB(text);
  if (mib !== undefined && mib >= MIN_HEAP_MIB && mib <= MAX_HEAP_MIB * 4)
    return { memoryMiB: mib, warnings: [] };
  return {
    memoryMiB: DEFAULT_BUILTIN_MEMORY_MIB,
    warnings: [
      `${BUILTIN_MEMORY_VARIABLE}=${JSON.stringify(text)} is not a memory quantity from ${MIN_HEAP_MIB}Mi to ${(MAX_HEAP_MIB * 4) / 1024}Gi (like 192Mi): using ${DEFAULT_BUILTIN_MEMORY_MIB}Mi`,
    ],
  };
}
