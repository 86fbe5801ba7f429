// The soak's arithmetic, kept pure so it is unit-tested: a weighted choice of operation (drawn
// from faults/prng.ts, so a run is reproducible from its seed), the least-squares slope of a
// series, and which conditions count as an error left behind.

/** One of `weights`' keys, drawn in proportion to its weight. */
export function pick<K extends string>(random: () => number, weights: Record<K, number>): K {
  const entries = Object.entries(weights) as [K, number][];
  const total = entries.reduce((a, [, w]) => a + w, 0);
  let r = random() * total;
  for (const [key, weight] of entries) {
    r -= weight;
    if (r < 0) return key;
  }
  return entries[entries.length - 1][0];
}

/** Least-squares slope of y over x (0 for fewer than two distinct x). */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
  }
  return sxx === 0 ? 0 : sxy / sxx;
}

export interface StatusCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** Ready/Rendered False for these reasons is work still under way, not a failure. */
export const IN_PROGRESS_REASONS: readonly string[] = ["Pending", "Progressing", "Reconciling"];

/**
 * The conditions of an object that report a failure: Stalled=True, or Ready/Rendered=False
 * with a reason other than an in-progress one.
 */
export function errorConditions(conditions: readonly StatusCondition[]): StatusCondition[] {
  return conditions.filter(
    c =>
      (c.type === "Stalled" && c.status === "True") ||
      ((c.type === "Ready" || c.type === "Rendered") &&
        c.status === "False" &&
        !IN_PROGRESS_REASONS.includes(c.reason ?? "")),
  );
}
