// "Has this been changed?" checks that ignore what kpt itself writes: the kpt-merge comment,
// the upstream-identifier annotation and, in Kptfiles, upstream/upstreamLock, name and status.
import type { Document } from "yaml";
import { baseName, krmObjects, parseKrmFile } from "../krm/documents";
import { plain, sameValue } from "../krm/nodes";
import { UPSTREAM_IDENTIFIER } from "./resource-id";
import { KPTFILE } from "./kptfile";

const KPTFILE_IGNORED = ["upstream", "upstreamLock", "status"];

/** Plain value of a KRM object without kpt's merge markers. */
export function comparableResource(doc: Document): unknown {
  const value = plain(doc.contents);
  if (!value || typeof value !== "object") return value;
  const object = { ...(value as Record<string, unknown>) };
  const metadata = object.metadata;
  if (metadata && typeof metadata === "object") {
    const meta = { ...(metadata as Record<string, unknown>) };
    const annotations = meta.annotations;
    if (annotations && typeof annotations === "object") {
      const rest = { ...(annotations as Record<string, unknown>) };
      delete rest[UPSTREAM_IDENTIFIER];
      if (Object.keys(rest).length > 0) meta.annotations = rest;
      else delete meta.annotations;
    }
    object.metadata = meta;
  }
  return object;
}

export function sameResource(a: Document, b: Document): boolean {
  return sameValue(comparableResource(a), comparableResource(b));
}

function comparableKptfile(doc: Document): unknown {
  const object = comparableResource(doc) as Record<string, unknown>;
  for (const key of KPTFILE_IGNORED) delete object[key];
  const metadata = object.metadata as Record<string, unknown> | undefined;
  if (metadata) delete metadata.name;
  return object;
}

/** True when two versions of a file are the same apart from kpt's own bookkeeping. */
export function sameFileContent(
  path: string,
  a: string | undefined,
  b: string | undefined,
): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const left = parseKrmFile(a);
  const right = parseKrmFile(b);
  if (!left || !right) return false;
  const [leftDocs, rightDocs] = [krmObjects(left), krmObjects(right)];
  if (leftDocs.length !== rightDocs.length) return false;
  const comparable = baseName(path) === KPTFILE ? comparableKptfile : comparableResource;
  return leftDocs.every((doc, i) => sameValue(comparable(doc), comparable(rightDocs[i])));
}
