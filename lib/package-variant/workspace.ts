export { packageRevisionObjectName } from "../packages/naming";
// Names of the drafts a PackageVariant creates: workspace `packagevariant-<N>` and object name
// `<repo>.<package path with "/" as ".">.<workspace>`, both as the reference computes them.
import type { PackageRevision } from "../../crd-types";

export const WORKSPACE_PREFIX = "packagevariant-";

/** Go's strconv.Atoi as the reference uses it: an optional sign and digits, anything else 0. */
function workspaceNumber(suffix: string): number {
  if (!/^[+-]?\d+$/.test(suffix)) return 0;
  const n = Number.parseInt(suffix, 10);
  return Number.isSafeInteger(n) ? n : 0;
}

/**
 * `packagevariant-<N+1>`, N the highest number among the workspaces named `packagevariant-<n>`
 * of every revision of that repository and package (owned or not, deleting or not: their names
 * are still taken). A non-integer suffix counts as 0; with none the result is
 * `packagevariant-1`.
 */
export function newWorkspaceName(
  revisions: readonly PackageRevision[],
  repo: string,
  packageName: string,
): string {
  let highest = 0;
  for (const pr of revisions) {
    if (pr.spec?.repository !== repo || pr.spec?.packageName !== packageName) continue;
    const workspace = pr.spec?.workspaceName ?? "";
    if (!workspace.startsWith(WORKSPACE_PREFIX)) continue;
    highest = Math.max(highest, workspaceNumber(workspace.slice(WORKSPACE_PREFIX.length)));
  }
  return `${WORKSPACE_PREFIX}${highest + 1}`;
}
