import type { PackageRevision } from "../../crd-types";
import { LATEST_REVISION_LABEL } from "../packages/latest-revision";

/**
 * What a PackageVariant reconcile reads of the watched objects (the projections its
 * ChangeFilters compare). An event that changes none of it causes no reconcile. Of the
 * PackageVariant itself: everything but its status (lib/controller/relevance.ts).
 */

/**
 * Of a PackageRevision: its spec and metadata (but the latest-revision label, which the
 * PackageRevision capability moves and no variant decision reads), and the status fields the
 * state machine reads (revision, creation source, upstream lock, Ready), plus the end of each
 * render and its outcome (Rendered), after which the draft's files are checked for the
 * variant's mutations again and Ready follows the render.
 */
export function revisionRelevance(pr: PackageRevision): unknown {
  const m = pr.metadata ?? {};
  const s = pr.status ?? {};
  const ready = s.conditions?.find(c => c.type === "Ready");
  const rendered = s.conditions?.find(c => c.type === "Rendered");
  const labels = { ...m.labels };
  delete labels[LATEST_REVISION_LABEL];
  return [
    m.uid,
    m.deletionTimestamp,
    labels,
    m.annotations,
    m.ownerReferences,
    pr.spec,
    s.revision,
    s.creationSource,
    s.upstreamLock,
    [ready?.status, ready?.reason, ready?.message],
    [rendered?.status, rendered?.reason, rendered?.message],
    s.observedPrrResourceVersion,
  ];
}
