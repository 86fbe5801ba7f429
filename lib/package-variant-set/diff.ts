import { isDeepStrictEqual } from "node:util";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The fields that differ between two specs, one line each: `labels.org: "hr" → "finance"`,
 * `pipeline: removed`. Lists are compared whole (a template renders them whole).
 */
export function specDiff(before: unknown, after: unknown, path = ""): string[] {
  if (isDeepStrictEqual(before, after)) return [];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap(k => specDiff(before[k], after[k], path ? `${path}.${k}` : k));
  }
  const show = (v: unknown) => JSON.stringify(v);
  if (before === undefined) return [`${path}: added ${show(after)}`];
  if (after === undefined) return [`${path}: removed (was ${show(before)})`];
  return [`${path}: ${show(before)} → ${show(after)}`];
}
