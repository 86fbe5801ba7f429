// How many PackageRevisions are reconciled at once and how many of those may render. A render
// limit at or above the number of workers is never reached (only a worker renders), so the
// limit is clamped to the workers and the operator is told.

export const WORKERS_VARIABLE = "PORCH_PEPR_PACKAGE_REVISION_WORKERS";
export const RENDERS_VARIABLE = "PORCH_PEPR_MAX_CONCURRENT_RENDERS";
export const DEFAULT_WORKERS = 8;
/**
 * By default every worker may render (what the measured benchmarks ran with); a lower limit
 * keeps workers free for git and API work while renders requeue.
 */
export const DEFAULT_RENDERS = DEFAULT_WORKERS;

export interface PackageRevisionConcurrency {
  /** PackageRevision reconciles at once (the work queue's concurrency). */
  workers: number;
  /** Of those, renders at once; the others requeue and do git and API work meanwhile. */
  renders: number;
  /** Settings that were replaced, for the start-up log. */
  warnings: string[];
}

function wholeNumber(
  env: Record<string, string | undefined>,
  name: string,
  min: number,
  fallback: number,
  warnings: string[],
  fallbackText = String(fallback),
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (Number.isInteger(value) && value >= min) return value;
  warnings.push(
    `${name}=${JSON.stringify(raw)} is not a whole number ≥ ${min}: using ${fallbackText}`,
  );
  return fallback;
}

export function packageRevisionConcurrency(
  env: Record<string, string | undefined>,
): PackageRevisionConcurrency {
  const warnings: string[] = [];
  const workers = wholeNumber(env, WORKERS_VARIABLE, 1, DEFAULT_WORKERS, warnings);
  const wanted = wholeNumber(
    env,
    RENDERS_VARIABLE,
    0,
    Math.min(DEFAULT_RENDERS, workers),
    warnings,
  );
  if (wanted === 0) return { workers, renders: workers, warnings };
  if (wanted > workers) {
    warnings.push(
      `${RENDERS_VARIABLE}=${wanted} can never be reached with ${WORKERS_VARIABLE}=${workers}: using ${workers}`,
    );
    return { workers, renders: workers, warnings };
  }
  return { workers, renders: wanted, warnings };
}

export const WORKERS_PER_NAMESPACE_VARIABLE = "PORCH_PEPR_WORKERS_PER_NAMESPACE";
export const RENDERS_PER_NAMESPACE_VARIABLE = "PORCH_PEPR_RENDERS_PER_NAMESPACE";

/**
 * What one namespace may hold at once: of each controller's workers (its work queue's
 * `perNamespace`) and of the render slots. Absent, half of them, at least one
 * (`defaultPerNamespace`); a share above the whole is the whole.
 */
export interface NamespaceShares {
  workers?: number;
  renders?: number;
  warnings: string[];
}

export function namespaceShares(env: Record<string, string | undefined>): NamespaceShares {
  const warnings: string[] = [];
  const share = (name: string) => {
    const value = wholeNumber(env, name, 1, 0, warnings, "half");
    return value === 0 ? undefined : value;
  };
  const workers = share(WORKERS_PER_NAMESPACE_VARIABLE);
  const renders = share(RENDERS_PER_NAMESPACE_VARIABLE);
  return { workers, renders, warnings };
}
