import type { PackageRevisionResources } from "../../crd-types";
import type { OperatorContext } from "../context";

/**
 * Keeps the render status a PackageRevisionResources carries at its version, as its writer got
 * it back or a reader read it: a variant's status copies it (package-variant/status.ts) once
 * its revision says that version was rendered, without reading the large object again. One
 * entry per revision, replaced by each write and dropped with the revision.
 */
export function rememberRenderStatus(ctx: OperatorContext, prr: PackageRevisionResources): void {
  const version = prr.metadata?.resourceVersion;
  if (!version) return;
  const key = `${prr.metadata?.namespace ?? ""}/${prr.metadata?.name ?? ""}`;
  const kept = ctx.caches.renderStatuses;
  kept.delete(key); // re-inserted last: the map's order is the order of use
  const renderStatus = prr.status?.renderStatus;
  if (JSON.stringify(renderStatus ?? null).length > MAX_KEPT_STATUS_BYTES) return;
  kept.set(key, { version, renderStatus });
  if (kept.size > MAX_KEPT_STATUSES) kept.delete(kept.keys().next().value as string);
}

/**
 * Bounds of what is kept (at most 20 MB): a status left out is read from the API server when
 * needed. A clean render's status is a few hundred bytes; a failing one's, up to the render
 * results' cap, is read again rather than held for every revision of every tenant.
 */
export const MAX_KEPT_STATUSES = 10_000;
export const MAX_KEPT_STATUS_BYTES = 2048;
