// Resource scope and identity as the kpt function SDK sees them, for set-namespace:
// built-in kinds from the Kubernetes API table, custom kinds from a CRD in the input,
// otherwise namespace-scoped (the catalog's documented behaviour since v0.4.6).
import type { Document } from "yaml";
import { apiGroup, krmMeta } from "../../krm/documents";
import { builtinNamespaceScoped } from "../../krm/scope";
import type { FnItem } from "../types";
import { annotationsOf, stringAt } from "../yaml-nodes";

export const UPSTREAM_IDENTIFIER = "internal.kpt.dev/upstream-identifier";
export const DEPENDS_ON_ANNOTATION = "config.kubernetes.io/depends-on";
/** The SDK's placeholder namespace for cluster-scoped (or unknown-scope) resources. */
export const CLUSTER_NAMESPACE = "~C";

export type ScopeOf = (doc: Document) => boolean;

/** Builds a namespace-scope test that knows the CRDs declared among `items`. */
export function scopeResolver(items: readonly FnItem[]): ScopeOf {
  const crdScopes = new Map<string, boolean>();
  for (const item of items) {
    const meta = krmMeta(item.doc);
    if (
      meta?.kind !== "CustomResourceDefinition" ||
      apiGroup(meta.apiVersion) !== "apiextensions.k8s.io"
    )
      continue;
    const group = stringAt(item.doc, ["spec", "group"]) ?? "";
    const kind = stringAt(item.doc, ["spec", "names", "kind"]) ?? "";
    crdScopes.set(`${group}/${kind}`, stringAt(item.doc, ["spec", "scope"]) !== "Cluster");
  }
  return doc => {
    const meta = krmMeta(doc);
    if (!meta) return false;
    const group = apiGroup(meta.apiVersion);
    return (
      builtinNamespaceScoped(group, meta.kind) ?? crdScopes.get(`${group}/${meta.kind}`) ?? true
    );
  };
}

export interface Gknn {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/** The SDK's GetId(): namespace "default" when unset on a namespaced resource, "~C" otherwise. */
export function currentId(doc: Document, isNamespaced: ScopeOf): Gknn {
  const meta = krmMeta(doc);
  const namespace = meta?.namespace || (isNamespaced(doc) ? "default" : CLUSTER_NAMESPACE);
  return {
    group: apiGroup(meta?.apiVersion ?? ""),
    kind: meta?.kind ?? "",
    namespace,
    name: meta?.name ?? "",
  };
}

/** The upstream origin from `internal.kpt.dev/upstream-identifier` (group|kind|ns|name). */
export function originId(doc: Document, isNamespaced: ScopeOf): Gknn {
  const upstream = annotationsOf(doc)[UPSTREAM_IDENTIFIER];
  if (upstream) {
    const [group = "", kind = "", namespace = "", name = ""] = upstream.trim().split("|");
    return { group, kind, namespace, name };
  }
  return currentId(doc, isNamespaced);
}

export function hasUpstreamOrigin(doc: Document): boolean {
  return !!annotationsOf(doc)[UPSTREAM_IDENTIFIER];
}

/** The SDK's KubeObject.ShortString(). */
export function shortString(doc: Document): string {
  const meta = krmMeta(doc);
  return `Resource(apiVersion=${meta?.apiVersion ?? ""}, kind=${meta?.kind ?? ""}, namespace=${meta?.namespace ?? ""}, name=${meta?.name ?? ""})`;
}

/** The depends-on form of a namespaced resource: `<group>/namespaces/<ns>/<kind>/<name>`. */
export function dependsOnKey(id: Gknn): string {
  return `${id.group}/namespaces/${id.namespace}/${id.kind}/${id.name}`;
}

export const NAMESPACED_DEPENDS_ON = /^([-.\w]*)\/namespaces\/([-.\w]*)\/([-.\w]*)\/([-.\w]*)$/;
