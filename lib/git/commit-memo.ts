// Commits read by a listing, kept by object id (immutable) for the next listing. Bounded by
// entries and by the bytes of their messages: 20,000 commits of a 1 MiB message each would be
// 20 GB, and one message of 120 MB, kept, held the watcher at 516 MB.
import type { CommitInfo } from "./client";

/** Bytes a commit takes besides its message (ids, names, dates): a rough, generous guess. */
const COMMIT_OVERHEAD_BYTES = 512;

export class CommitMemo {
  private readonly commits = new Map<string, CommitInfo>();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  get(oid: string): CommitInfo | undefined {
    return this.commits.get(oid);
  }

  /** Keeps `info` (dropping everything kept when it would go over a bound); returns it. */
  remember(info: CommitInfo): CommitInfo {
    const size = COMMIT_OVERHEAD_BYTES + 2 * info.message.length;
    if (size > this.maxBytes) return info; // never kept: alone over the bound
    if (this.commits.size >= this.maxEntries || this.bytes + size > this.maxBytes) {
      this.commits.clear();
      this.bytes = 0;
    }
    if (!this.commits.has(info.oid)) this.bytes += size;
    this.commits.set(info.oid, info);
    return info;
  }

  /** Bytes counted for what is kept now. */
  get heldBytes(): number {
    return this.bytes;
  }
}
