import type { PackageRevisionResources } from "../../crd-types";
import { heapBytes } from "../../lib/package-revision/render-statuses";
import type { OperatorContext } from "../context";

/**
 * Keeps the render status a PackageRevisionResources carries at its version, as its writer got
 * it back or a reader read it: a variant's status copies it (package-variant/status.ts) once
 * its revision says that version was rendered, without reading the large object again. One
 * entry per revision, replaced by each write and dropped with the revision; the least recently
 * written are dropped over the bound.
 */
export function rememberRenderStatus(ctx: OperatorContext, prr: PackageRevisionResources): void {
  const version = prr.metadata?.resourceVersion;
  if (!version) return;
  const key = `${prr.metadata?.namespace ?? ""}/${prr.metadata?.name ?? ""}`;
  const renderStatus = prr.status?.renderStatus;
  ctx.caches.renderStatuses.set(key, { version, renderStatus }, heapBytes(renderStatus));
}
