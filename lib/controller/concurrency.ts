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
 * workers). `take` never waits: a caller that finds no slot free requeues instead of holding
 * a worker. A limit of 0 means unlimited.
 */
export class Slots {
  #taken = 0;

  constructor(readonly limit: number) {}

  take(): boolean {
    if (this.limit > 0 && this.#taken >= this.limit) return false;
    this.#taken++;
    return true;
  }

  release(): void {
    this.#taken = Math.max(0, this.#taken - 1);
  }

  get taken(): number {
    return this.#taken;
  }
}
