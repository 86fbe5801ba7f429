// Which revision a package + workspace names when git holds more than one under that name.
import type { PackageRevisionInfo, PackageRevisionKey } from "./types";

/** Draft/Proposed (revision 0) first, tags (revision > 0) next, the branch placeholder (-1) last. */
function rank(r: PackageRevisionInfo): number {
  return r.revision === 0 ? 0 : r.revision > 0 ? 1 : 2;
}

/**
 * The revision `key` names: a draft or proposal is the one being worked on, so it wins over a
 * tag; a tag is published content, so it wins over the placeholder, which only mirrors the
 * branch. Among tags the highest revision wins; other ties keep the listing order (Draft before
 * Proposed). Undefined when git has none.
 */
export function selectRevision(
  revisions: readonly PackageRevisionInfo[],
  key: PackageRevisionKey,
): PackageRevisionInfo | undefined {
  let best: PackageRevisionInfo | undefined;
  for (const r of revisions) {
    if (r.packageName !== key.packageName || r.workspaceName !== key.workspaceName) continue;
    if (!best || rank(r) < rank(best) || (rank(r) === rank(best) && r.revision > best.revision))
      best = r;
  }
  return best;
}
