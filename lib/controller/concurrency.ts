/** Runs `fn` over `items` with at most `limit` calls in flight; resolves when all are done. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * A fixed number of slots for work that must not all run at once (renders among reconcile
 * workers; bytes of git fetches in flight, taken many at once), shared fairly: one namespace
 * holds at most `perNamespace` of them, so a tenant's burst always leaves `limit - perNamespace`
 * slots to the others. `take` never waits: a caller that finds no slot free requeues instead of
 * holding a worker (FairBudget waits for them). A limit of 0 means unlimited.
 */
export class Slots {
  #taken = 0;
  readonly #held = new Map<string, number>();
  readonly perNamespace: number;

  constructor(
    readonly limit: number,
    perNamespace = limit,
  ) {
    this.perNamespace = limit > 0 ? Math.max(1, Math.min(perNamespace, limit)) : perNamespace;
  }

  /** Whether `take(namespace, amount)` would succeed now. */
  free(namespace: string, amount = 1): boolean {
    if (this.limit > 0 && this.#taken + amount > this.limit) return false;
    return this.perNamespace <= 0 || this.heldBy(namespace) + amount <= this.perNamespace;
  }

  take(namespace: string, amount = 1): boolean {
    if (!this.free(namespace, amount)) return false;
    this.#taken += amount;
    this.#held.set(namespace, this.heldBy(namespace) + amount);
    return true;
  }

  /** Gives back `amount` (at most what the namespace holds). */
  release(namespace: string, amount = 1): void {
    const held = this.heldBy(namespace);
    const given = Math.min(held, amount);
    if (given <= 0) return;
    this.#taken -= given;
    if (held > given) this.#held.set(namespace, held - given);
    else this.#held.delete(namespace);
  }

  get taken(): number {
    return this.#taken;
  }

  heldBy(namespace: string): number {
    return this.#held.get(namespace) ?? 0;
  }
}
