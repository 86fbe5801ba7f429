// Values kept by key up to a number of bytes (as their owner estimates them); the least
// recently used go first. One of these serves each process-wide memo of immutable git data
// (packages, commits, Kptfiles by object id), so what every Repository of every tenant keeps
// has one bound, not one per Repository.

export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private held = 0;

  /** `maxBytes` in all; one value may take at most `maxBytes / maxShare`. */
  constructor(
    readonly maxBytes: number,
    private readonly maxShare = 8,
  ) {}

  /** Bytes the kept values take now, as estimated when each was set. */
  get bytes(): number {
    return this.held;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Most recently used last: a Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` unless it alone would take more than its share; drops the oldest over the bound. */
  set(key: string, value: V, bytes: number): void {
    if (bytes > this.maxBytes / this.maxShare) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.held -= old.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.held += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.held -= entry.bytes;
    }
  }
}
