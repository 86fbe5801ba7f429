// Resource identity for 3-way merges, and the markers kpt writes so that a resource renamed
// downstream still matches its upstream: `metadata: # kpt-merge: <ns>/<name>` and the
// annotation `internal.kpt.dev/upstream-identifier: '<group>|<Kind>|<ns or default>|<name>'`.
import { Document, isMap, isScalar, Pair, YAMLMap } from "yaml";
import { apiGroup, krmMeta } from "../krm/documents";
import { ensureMap, findPair, getField, setField, singleQuoted } from "../krm/nodes";
import type { ResourceRef } from "./types";

export const UPSTREAM_IDENTIFIER = "internal.kpt.dev/upstream-identifier";
export const MERGE_COMMENT_PREFIX = "kpt-merge:";
const DEFAULT_NAMESPACE = "default";
const METADATA_ORDER = ["name", "namespace", "labels", "annotations"];

/** group|Kind|namespace|name, with "" namespace written as "default" (kpt's convention). */
export interface ResourceIdentity {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

export function identityKey(id: ResourceIdentity): string {
  return `${id.group}|${id.kind}|${id.namespace}|${id.name}`;
}

export function resourceRef(doc: Document): ResourceRef | undefined {
  const meta = krmMeta(doc);
  if (!meta) return undefined;
  const ref: ResourceRef = { apiVersion: meta.apiVersion, kind: meta.kind, name: meta.name };
  if (meta.namespace) ref.namespace = meta.namespace;
  return ref;
}

/** The `<ns>/<name>` of a `kpt-merge:` comment on the metadata key, if any. */
export function mergeCommentTarget(doc: Document): { namespace: string; name: string } | undefined {
  const pair = metadataPair(doc);
  const comment = pair && isScalar(pair.key) ? pair.key.comment : undefined;
  if (!comment) return undefined;
  const text = comment.trim().replace(/^#/, "").trim();
  if (!text.startsWith(MERGE_COMMENT_PREFIX)) return undefined;
  const rest = text.slice(MERGE_COMMENT_PREFIX.length).trim();
  const slash = rest.indexOf("/");
  if (slash < 0) return undefined;
  return { namespace: rest.slice(0, slash), name: rest.slice(slash + 1) };
}

/**
 * Identity used to pair up original/updated/local copies of a resource: the upstream-identifier
 * annotation, else the kpt-merge comment, else the object's own group/kind/namespace/name.
 */
export function resourceIdentity(doc: Document): ResourceIdentity | undefined {
  const meta = krmMeta(doc);
  if (!meta) return undefined;
  const annotated = parseUpstreamIdentifier(annotation(doc, UPSTREAM_IDENTIFIER));
  if (annotated) return annotated;
  const target = mergeCommentTarget(doc) ?? { namespace: meta.namespace, name: meta.name };
  return {
    group: apiGroup(meta.apiVersion),
    kind: meta.kind,
    namespace: target.namespace || DEFAULT_NAMESPACE,
    name: target.name,
  };
}

function parseUpstreamIdentifier(value: string | undefined): ResourceIdentity | undefined {
  const parts = value?.split("|");
  if (!parts || parts.length !== 4 || !parts[1] || !parts[3]) return undefined;
  return {
    group: parts[0],
    kind: parts[1],
    namespace: parts[2] || DEFAULT_NAMESPACE,
    name: parts[3],
  };
}

function annotation(doc: Document, key: string): string | undefined {
  const value = getField(getField(getField(doc.contents, "metadata"), "annotations"), key);
  return isScalar(value) && typeof value.value === "string" ? value.value : undefined;
}

function metadataPair(doc: Document): Pair | undefined {
  return isMap(doc.contents) ? findPair(doc.contents, "metadata") : undefined;
}

/** Removes the kpt-merge comment, so that addMergeMarkers records the object's current identity. */
export function clearMergeComment(doc: Document): void {
  const pair = metadataPair(doc);
  if (pair && isScalar(pair.key) && mergeCommentTarget(doc)) pair.key.comment = undefined;
}

/**
 * Adds kpt's merge markers as `kpt pkg get` / Porch's clone do: the comment only when absent
 * (so the first upstream identity is kept), then the annotation derived from the comment.
 * Objects without name, namespace or labels are skipped, as kpt does. Returns true if changed.
 */
export function addMergeMarkers(doc: Document): boolean {
  const meta = krmMeta(doc);
  const pair = metadataPair(doc);
  if (!meta || !pair || !isMap(pair.value) || !isScalar(pair.key)) return false;
  if (!meta.name && !meta.namespace && !isMap(getField(pair.value, "labels"))) return false;
  let changed = false;
  if (!mergeCommentTarget(doc)) {
    keepUserComment(pair);
    pair.key.comment = ` ${MERGE_COMMENT_PREFIX} ${meta.namespace}/${meta.name}`;
    changed = true;
  }
  const target = mergeCommentTarget(doc) ?? { namespace: meta.namespace, name: meta.name };
  const value = `${apiGroup(meta.apiVersion)}|${meta.kind}|${target.namespace || DEFAULT_NAMESPACE}|${target.name}`;
  if (annotation(doc, UPSTREAM_IDENTIFIER) !== value) {
    setField(
      ensureMap(pair.value, "annotations", METADATA_ORDER),
      UPSTREAM_IDENTIFIER,
      singleQuoted(value),
    );
    changed = true;
  }
  return changed;
}

/** kpt overwrites any other comment on the metadata key; we move it inside the map instead. */
function keepUserComment(pair: Pair): void {
  if (!isScalar(pair.key) || !pair.key.comment || !(pair.value instanceof YAMLMap)) return;
  const previous = pair.value.commentBefore;
  pair.value.commentBefore = previous ? `${pair.key.comment}\n${previous}` : pair.key.comment;
  pair.key.comment = undefined;
}
