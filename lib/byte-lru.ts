// Values kept by key up to a number of bytes (as their owner estimates them); the least
// recently used go first. Each process-wide memo of what tenants' objects hold (packages,
// commits, Kptfiles by object id; render statuses) is one of these, so what every tenant keeps
// has one bound, not one per Repository or per object.

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

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.held -= entry.bytes;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Most recently used last: a Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * Keeps `value` unless it alone would take more than its share (then what the key held is
   * forgotten); drops the least recently used over the bound.
   */
  set(key: string, value: V, bytes: number): void {
    if (bytes > this.maxBytes / this.maxShare) return this.delete(key);
    this.delete(key);
    this.entries.set(key, { value, bytes });
    this.held += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.held -= entry.bytes;
    }
  }
}
