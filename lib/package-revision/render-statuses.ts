// The render status each downstream revision's PackageRevisionResources carries at a version,
// kept so a variant's status can copy it without reading the large object again. Bounded by an
// estimate of the heap it takes, in all and per entry: a status left out, or dropped as the
// least recently written, is read from the API server when needed.
import type { PackageRevisionResources } from "../../crd-types";
import { ByteLru } from "../byte-lru";

export type RenderStatus = NonNullable<PackageRevisionResources["status"]>["renderStatus"];

/** By "namespace/name" of the revision: the version rendered and its status. */
export type RenderStatuses = ByteLru<{ version: string; renderStatus: RenderStatus }>;

/** In all: about 40,000 clean statuses of a few hundred bytes. */
export const MAX_KEPT_STATUSES_BYTES = 16 * 1024 * 1024;
/**
 * One status: a clean render's is a few hundred bytes; a failing one's, up to the render
 * results' cap, is read again rather than held for every revision of every tenant.
 */
export const MAX_KEPT_STATUS_BYTES = 64 * 1024;

export function newRenderStatuses(maxBytes = MAX_KEPT_STATUSES_BYTES): RenderStatuses {
  return new ByteLru(maxBytes, maxBytes / MAX_KEPT_STATUS_BYTES);
}

/**
 * What a status costs the heap, roughly: its text (UTF-16) and about 64 bytes for each object
 * and array. Its JSON length alone undercounts: 2 KiB of `{},` is 680 objects, and 10,000
 * entries of it took 432 MB.
 */
export function heapBytes(status: unknown): number {
  const text = JSON.stringify(status ?? null);
  let containers = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) containers++; // `{` or `[`
  }
  return 2 * text.length + 64 * containers;
}
