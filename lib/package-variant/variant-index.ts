import type { PackageVariant } from "../../crd-types";
import type { InClusterRef } from "./injection-points";
import { inClusterKey } from "./injection-points";

interface Entry {
  key: string;
  namespace: string;
  uid: string;
  upstream: string;
  downstream: string;
  /** In-cluster objects the last reconcile injected or looked for. */
  injected: Set<string>;
}

const packageKey = (namespace: string, repo = "", pkg = "") => `${namespace}/${repo}/${pkg}`;

/**
 * Which PackageVariants a PackageRevision or an injected object concerns (the reference maps
 * every PackageRevision event to every PackageVariant of the namespace; docs/api-usage.md,
 * “Event mapping”).
 */
export class VariantIndex {
  readonly #entries = new Map<string, Entry>();

  upsert(pv: PackageVariant, key: string): void {
    const ns = pv.metadata?.namespace ?? "";
    this.#entries.set(key, {
      key,
      namespace: ns,
      uid: pv.metadata?.uid ?? "",
      upstream: packageKey(ns, pv.spec?.upstream?.repo, pv.spec?.upstream?.package),
      downstream: packageKey(ns, pv.spec?.downstream?.repo, pv.spec?.downstream?.package),
      injected: this.#entries.get(key)?.injected ?? new Set(),
    });
  }

  remove(key: string): void {
    this.#entries.delete(key);
  }

  setInjected(key: string, refs: readonly InClusterRef[]): void {
    const entry = this.#entries.get(key);
    if (entry) entry.injected = new Set(refs.map(inClusterKey));
  }

  /** Variants whose upstream or downstream is this package, or that own the revision. */
  forPackageRevision(
    namespace: string,
    repo: string,
    pkg: string,
    ownerUids: readonly string[],
  ): string[] {
    const k = packageKey(namespace, repo, pkg);
    return this.#select(e => e.upstream === k || e.downstream === k || ownerUids.includes(e.uid));
  }

  forInjected(ref: InClusterRef): string[] {
    const k = inClusterKey(ref);
    return this.#select(e => e.injected.has(k));
  }

  /** "apiVersion/Kind" of every injected object: the kinds to watch. */
  injectedKinds(): Set<string> {
    const kinds = new Set<string>();
    for (const e of this.#entries.values()) {
      for (const k of e.injected) kinds.add(k.split("/").slice(0, -2).join("/"));
    }
    return kinds;
  }

  #select(predicate: (e: Entry) => boolean): string[] {
    return [...this.#entries.values()].filter(predicate).map(e => e.key);
  }
}
