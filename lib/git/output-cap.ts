// What a git process writes that is not already bounded: its messages (stderr, where a server's
// "remote:" lines land) and any output read whole. A server that floods side-band messages
// writes no pack, so no fetch limit sees it: 300 MB of them took the watcher from 55 to 653 MB.

/** Bytes of a git process's messages kept: the start and the end, where its errors are. */
export const MESSAGE_KEPT_BYTES = 64 * 1024;
/** Messages past this many bytes end the git process: no real git call writes that much. */
export const MESSAGE_MAX_BYTES = 1024 * 1024;

/** Collects a stream's bytes, keeping only its first and last `kept / 2` bytes, and counts them all. */
export class HeadAndTail {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** Every byte received, kept or not. */
  total = 0;

  constructor(private readonly kept = MESSAGE_KEPT_BYTES) {}

  add(chunk: Buffer): void {
    this.total += chunk.length;
    const half = Math.floor(this.kept / 2);
    if (this.headBytes < half) {
      const take = chunk.subarray(0, half - this.headBytes);
      // Copied: a slice would keep the whole chunk it came from alive.
      this.head.push(Buffer.from(take));
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(Buffer.from(chunk.subarray(Math.max(0, chunk.length - half))));
    this.tailBytes += Math.min(chunk.length, half);
    while (this.tailBytes > half) {
      const over = this.tailBytes - half;
      const first = this.tail[0];
      if (first.length <= over) this.tail.shift();
      else this.tail[0] = first.subarray(over);
      this.tailBytes -= Math.min(first.length, over);
    }
  }

  /** Bytes held now: at most `kept`. */
  get held(): number {
    return this.headBytes + this.tailBytes;
  }

  /** The kept bytes as text, a marker where bytes were left out. */
  text(): string {
    const cut = this.total - this.held;
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    return cut > 0 ? `${head}\n[${cut} bytes left out]\n${tail}` : head + tail;
  }
}
