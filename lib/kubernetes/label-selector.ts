/** A metav1.LabelSelector, as the CRDs carry it. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * The `labelSelector` query parameter for a LabelSelector, so the API server does the
 * filtering: `env=prod,region in (a,b),!legacy,tier`.
 */
export function toSelectorString(selector: LabelSelector | undefined): string {
  const terms = Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector?.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(",");
    switch (e.operator) {
      case "In":
        terms.push(`${e.key} in (${values})`);
        break;
      case "NotIn":
        terms.push(`${e.key} notin (${values})`);
        break;
      case "Exists":
        terms.push(e.key);
        break;
      case "DoesNotExist":
        terms.push(`!${e.key}`);
        break;
      default:
        throw new Error(`unsupported label selector operator "${e.operator}"`);
    }
  }
  return terms.join(",");
}

/** Client-side match, for objects already in memory (watch events). */
export function matchesSelector(
  labels: Record<string, string> | undefined,
  selector: LabelSelector | undefined,
): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector?.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector?.matchExpressions ?? []) {
    const has = e.key in l;
    const values = e.values ?? [];
    if (e.operator === "In" && !(has && values.includes(l[e.key]))) return false;
    if (e.operator === "NotIn" && has && values.includes(l[e.key])) return false;
    if (e.operator === "Exists" && !has) return false;
    if (e.operator === "DoesNotExist" && has) return false;
  }
  return true;
}
