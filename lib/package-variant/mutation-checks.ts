/**
 * Mutation checks that found nothing to change, by downstream revision. applyMutations reads
 * the revision's files, the variant's spec, name and namespace, and injected objects; a check
 * that injected nothing is remembered with the files' resourceVersion and the variant's UID and
 * generation, so a later check with the same stamp has the same answer without reading the
 * files again. Any other outcome forgets the revision: the next check reads them.
 */
export class MutationChecks {
  readonly #unchanged = new Map<string, string>();

  /** The inputs of a check, or undefined when one is unknown (then nothing is remembered). */
  static stamp(
    variant: { metadata?: { uid?: string; generation?: number } },
    filesVersion: string | undefined,
  ): string | undefined {
    const { uid, generation } = variant.metadata ?? {};
    if (!uid || generation === undefined || !filesVersion) return undefined;
    return `${uid}/${generation}/${filesVersion}`;
  }

  /** Whether `revision`'s last check, with this stamp, found nothing to change. */
  unchanged(revision: string, stamp: string | undefined): boolean {
    return stamp !== undefined && this.#unchanged.get(revision) === stamp;
  }

  /** The outcome of a check of `revision`: only "nothing to change, nothing injected" is kept. */
  record(revision: string, stamp: string | undefined, unchanged: boolean): void {
    if (unchanged && stamp !== undefined) this.#unchanged.set(revision, stamp);
    else this.#unchanged.delete(revision);
  }

  forget(revision: string): void {
    this.#unchanged.delete(revision);
  }

  get size(): number {
    return this.#unchanged.size;
  }
}
