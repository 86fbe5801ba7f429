import { createHash } from "node:crypto";

/**
 * Remembers, per object, a digest of the part of it a controller reads, and tells whether an
 * event changed that part. Watches deliver every write (status updates, labels other
 * controllers keep, the controller's own writes); an event that changes nothing a reconcile
 * reads need not cost one (each costs API requests; measured by npm run bench). The projection
 * must cover every field the reconciler's decisions read: what it leaves out is never a cause
 * to look again.
 */
export class ChangeFilter<T> {
  readonly #seen = new Map<string, string>();

  constructor(private readonly project: (obj: T) => unknown) {}

  /** True the first time `key` is seen and whenever its projection differs from the last one. */
  changed(key: string, obj: T): boolean {
    const digest = createHash("sha1")
      .update(JSON.stringify(this.project(obj)) ?? "")
      .digest("base64");
    if (this.#seen.get(key) === digest) return false;
    this.#seen.set(key, digest);
    return true;
  }

  forget(key: string): void {
    this.#seen.delete(key);
  }

  get size(): number {
    return this.#seen.size;
  }
}
