import type { PackageVariantSet } from "../../crd-types";

interface Entry {
  key: string;
  namespace: string;
  upstreamRepo: string;
  upstreamPackage: string;
  selectsRepositories: boolean;
  objectKinds: string[];
  /** Downstream repositories of the last reconcile: their labels feed templates. */
  downstreamRepos: Set<string>;
}

/** "apiVersion/Kind": how selected kinds are keyed. */
export const kindKey = (apiVersion: string, kind: string): string => `${apiVersion}/${kind}`;

/**
 * Which PackageVariantSets an event concerns, so a change reconciles only those sets instead
 * of every set in the namespace (the reference maps every event to every set; see
 * docs/api-usage.md, “Event mapping”).
 */
export class SetIndex {
  readonly #entries = new Map<string, Entry>();
  readonly #byUid = new Map<string, string>();

  upsert(set: PackageVariantSet, key: string): void {
    const targets = set.spec?.targets ?? [];
    const previous = this.#entries.get(key);
    this.#entries.set(key, {
      key,
      namespace: set.metadata?.namespace ?? "",
      upstreamRepo: set.spec?.upstream?.repo ?? "",
      upstreamPackage: set.spec?.upstream?.package ?? "",
      selectsRepositories: targets.some(t => t.repositorySelector !== undefined),
      objectKinds: targets.flatMap(t =>
        t.objectSelector?.apiVersion && t.objectSelector.kind
          ? [kindKey(t.objectSelector.apiVersion, t.objectSelector.kind)]
          : [],
      ),
      downstreamRepos: previous?.downstreamRepos ?? new Set(),
    });
    if (set.metadata?.uid) this.#byUid.set(set.metadata.uid, key);
  }

  remove(key: string, uid?: string): void {
    this.#entries.delete(key);
    if (uid) this.#byUid.delete(uid);
  }

  setDownstreamRepos(key: string, repos: Iterable<string>): void {
    const entry = this.#entries.get(key);
    if (entry) entry.downstreamRepos = new Set(repos);
  }

  keyOfUid(uid: string): string | undefined {
    return this.#byUid.get(uid);
  }

  forUpstream(namespace: string, repo: string, pkg: string): string[] {
    return this.#select(
      e => e.namespace === namespace && e.upstreamRepo === repo && e.upstreamPackage === pkg,
    );
  }

  forRepository(namespace: string, name: string): string[] {
    return this.#select(
      e => e.namespace === namespace && (e.selectsRepositories || e.downstreamRepos.has(name)),
    );
  }

  forObject(namespace: string, apiVersion: string, kind: string): string[] {
    const k = kindKey(apiVersion, kind);
    return this.#select(e => e.namespace === namespace && e.objectKinds.includes(k));
  }

  /** Every selected kind of every set: the kinds to watch. */
  objectKinds(): Set<string> {
    return new Set([...this.#entries.values()].flatMap(e => e.objectKinds));
  }

  #select(predicate: (e: Entry) => boolean): string[] {
    return [...this.#entries.values()].filter(predicate).map(e => e.key);
  }
}
