import type { FetchedObjects } from "./injection";
import { inClusterKey, type InClusterRef } from "./injection-points";

/**
 * The injected objects a mutation check (or a new draft's source) read, as it found them: what
 * a later check must find again to have the same answer. Every object read is listed, those
 * that did not exist too: an injector earlier in order whose object appears since selects
 * another object.
 */
export interface InjectionReads {
  /** Each object read (every candidate walked, up to each point's first found), in order. */
  read: InClusterRef[];
  /** Per object read, its resourceVersion then, or null when it did not exist. */
  versions: (string | null)[];
  /** Every candidate of the injection: what the variant watches (VariantIndex.setInjected). */
  watched: InClusterRef[];
}

export const NOTHING_INJECTED: InjectionReads = { read: [], versions: [], watched: [] };

const versionOf = (object: unknown): string | undefined => {
  const rv = (object as { metadata?: { resourceVersion?: unknown } } | null)?.metadata
    ?.resourceVersion;
  return typeof rv === "string" && rv !== "" ? rv : undefined;
};

/**
 * The versions of the objects read, or undefined when one cannot be compared later (it could
 * not be read, or has no resourceVersion).
 */
function versionsRead(
  read: readonly InClusterRef[],
  fetched: FetchedObjects,
): (string | null)[] | undefined {
  const versions: (string | null)[] = [];
  for (const ref of read) {
    const outcome = fetched.get(inClusterKey(ref));
    if (outcome?.status === "notFound") versions.push(null);
    else if (outcome?.status !== "found") return undefined;
    else {
      const version = versionOf(outcome.object);
      if (version === undefined) return undefined;
      versions.push(version);
    }
  }
  return versions;
}

interface Remembered {
  stamp: string;
  reads: InjectionReads;
}

/**
 * Mutation checks that found nothing to change, by downstream revision. applyMutations reads
 * the revision's files, the variant's spec, name and namespace, and injected objects; a check
 * that found nothing is remembered with the files' resourceVersion, the variant's UID and
 * generation and the versions of the injected objects it read, so a later check with the same
 * stamp and the same objects at the same versions has the same answer without reading the
 * files again. Any other outcome forgets the revision: the next check reads them.
 */
export class MutationChecks {
  readonly #unchanged = new Map<string, Remembered>();

  /** The inputs of a check, or undefined when one is unknown (then nothing is remembered). */
  static stamp(
    variant: { metadata?: { uid?: string; generation?: number } },
    filesVersion: string | undefined,
  ): string | undefined {
    const { uid, generation } = variant.metadata ?? {};
    if (!uid || generation === undefined || !filesVersion) return undefined;
    return `${uid}/${generation}/${filesVersion}`;
  }

  /**
   * What an injection that read `fetched` for the candidates `watched` must find again, or
   * undefined when it cannot be told (an object that could not be read).
   */
  static reads(
    watched: readonly InClusterRef[],
    fetched: FetchedObjects,
  ): InjectionReads | undefined {
    const read = watched.filter(ref => fetched.has(inClusterKey(ref)));
    const versions = versionsRead(read, fetched);
    return versions && { read, versions, watched: [...watched] };
  }

  /** Whether the objects read again (`fetched`) are the ones `reads` found, at their versions. */
  static same(reads: InjectionReads, fetched: FetchedObjects): boolean {
    const now = versionsRead(reads.read, fetched);
    return now !== undefined && now.every((v, i) => v === reads.versions[i]);
  }

  /** Whether `revision`'s last check, with this stamp, found nothing to change and injected nothing. */
  unchanged(revision: string, stamp: string | undefined): boolean {
    return this.toConfirm(revision, stamp)?.read.length === 0;
  }

  /**
   * The injected objects to read again when `revision`'s last check, with this stamp, found
   * nothing to change: if they are as it found them, nothing changed (none to read: see
   * unchanged). Undefined when that check is not remembered.
   */
  toConfirm(revision: string, stamp: string | undefined): InjectionReads | undefined {
    const remembered = this.#unchanged.get(revision);
    return stamp !== undefined && remembered?.stamp === stamp ? remembered.reads : undefined;
  }

  /**
   * The outcome of a check of `revision`: only "nothing to change" with injected objects whose
   * versions are known (`reads`, NOTHING_INJECTED when none; undefined when not known) is kept.
   */
  record(
    revision: string,
    stamp: string | undefined,
    unchanged: boolean,
    reads: InjectionReads | undefined,
  ): void {
    if (unchanged && stamp !== undefined && reads !== undefined)
      this.#unchanged.set(revision, { stamp, reads });
    else this.#unchanged.delete(revision);
  }

  forget(revision: string): void {
    this.#unchanged.delete(revision);
  }

  get size(): number {
    return this.#unchanged.size;
  }
}
