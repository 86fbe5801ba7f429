// Resource selection for kustomize replacements: ResId matching (empty fields match
// anything, namespaces compared by effective namespace) plus label/annotation selectors.
import type { Document } from "yaml";
import { apiGroup, krmMeta } from "../../krm/documents";
import { builtinNamespaceScoped } from "../../krm/scope";
import { annotationsOf, labelsOf } from "../yaml-nodes";
import { parseLabelSelector } from "./label-selector";

export interface ResId {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
}

export interface Selector extends ResId {
  labelSelector?: string;
  annotationSelector?: string;
}

export function resIdOf(value: Record<string, unknown>): ResId {
  const text = (key: string): string | undefined =>
    typeof value[key] === "string" ? (value[key] as string) : undefined;
  return {
    group: text("group"),
    version: text("version"),
    kind: text("kind"),
    name: text("name"),
    namespace: text("namespace"),
  };
}

export function selectorOf(value: Record<string, unknown>): Selector {
  const text = (key: string): string | undefined =>
    typeof value[key] === "string" ? (value[key] as string) : undefined;
  return {
    ...resIdOf(value),
    labelSelector: text("labelSelector"),
    annotationSelector: text("annotationSelector"),
  };
}

export function isEmptyResId(id: ResId): boolean {
  return !id.group && !id.version && !id.kind && !id.name && !id.namespace;
}

/** kyaml ResId.IsSelectedBy. */
export function selectedByResId(doc: Document, selector: ResId): boolean {
  const meta = krmMeta(doc);
  if (!meta) return false;
  const group = apiGroup(meta.apiVersion);
  const version = meta.apiVersion.slice(meta.apiVersion.indexOf("/") + 1);
  if (selector.name && selector.name !== meta.name) return false;
  if (selector.group && selector.group !== group) return false;
  if (selector.version && selector.version !== version) return false;
  if (selector.kind && selector.kind !== meta.kind) return false;
  if (!selector.namespace) return true;
  // A selector decoded from YAML never counts as cluster-scoped in kustomize.
  const clusterScoped = builtinNamespaceScoped(group, meta.kind) === false;
  return (
    effectiveNamespace(meta.namespace, clusterScoped) ===
    effectiveNamespace(selector.namespace, false)
  );
}

/** Both label and annotation selectors (empty ones match everything). */
export function selectedByLabels(doc: Document, selector: Selector): boolean {
  const labelsMatch = parseLabelSelector(selector.labelSelector ?? "")(labelsOf(doc));
  return labelsMatch && parseLabelSelector(selector.annotationSelector ?? "")(annotationsOf(doc));
}

function effectiveNamespace(namespace: string, clusterScoped: boolean): string {
  if (clusterScoped) return "_non_namespaceable_";
  return namespace === "" || namespace === "default" ? "default" : namespace;
}

/** kustomize ResId.String(): `Kind.version.group/name.namespace` with [noX] placeholders. */
export function resIdString(id: ResId): string {
  const gvk = `${id.kind || "[noKind]"}.${id.version || "[noVer]"}.${id.group || "[noGrp]"}`;
  return `${gvk}/${id.name || "[noName]"}.${id.namespace || "[noNs]"}`;
}
