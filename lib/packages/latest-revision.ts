import { isPublished } from "../git/types";

export const LATEST_REVISION_LABEL = "porch.kpt.dev/latest-revision";

export interface RevisionSummary {
  name: string;
  repository: string;
  packageName: string;
  lifecycle?: string;
  revision?: number;
  deleting?: boolean;
}

/**
 * The latest-revision label (docs/package-revisions.md, “Latest-revision label”): per package,
 * the non-deleting Published or DeletionProposed revision with the highest number is "true",
 * every other revision "false".
 */
export function latestRevisionLabels(revisions: RevisionSummary[]): Map<string, "true" | "false"> {
  const best = new Map<string, RevisionSummary>();
  for (const r of revisions) {
    if (!isPublished(r.lifecycle) || r.deleting || (r.revision ?? 0) < 1) continue;
    const key = `${r.repository}/${r.packageName}`;
    const current = best.get(key);
    if (!current || (r.revision ?? 0) > (current.revision ?? 0)) best.set(key, r);
  }
  const latest = new Set([...best.values()].map(r => r.name));
  return new Map(revisions.map(r => [r.name, latest.has(r.name) ? "true" : "false"]));
}
