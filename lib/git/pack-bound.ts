// The per-fetch limit for the git CLI, which has no receive limit for a fetch (only
// receive.maxInputSize, for a push it receives): with fetch.unpackLimit=1 everything a fetch
// downloads is written to one pack file in objects/pack, so the bound watches that folder while
// git runs (ending git's process group once it is over) and measures the result when git is
// done. Over the limit, the caller restores its refs and discard() removes the new packs; after
// any other failure discardTemporary() removes the half-written ones.
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { overLimit, type GitContentLimits } from "./content-limits";

/** How often a running fetch's pack is measured. Only how soon it is ended depends on this. */
const POLL_MS = 200;

export class PackBound {
  exceeded = false;
  readonly says: string;
  private timer: NodeJS.Timeout | undefined;
  private measuring = false;

  private constructor(
    private readonly dir: string,
    private readonly before: Set<string>,
    private readonly max: number,
    limits: GitContentLimits,
  ) {
    this.says = overLimit("maxFetchBytes", limits);
  }

  static async start(gitdir: string, limits: GitContentLimits): Promise<PackBound> {
    const dir = join(gitdir, "objects", "pack");
    return new PackBound(dir, new Set(await names(dir)), limits.maxFetchBytes, limits);
  }

  /** Watches the fetch run by process group `pid`. */
  watch = (pid: number | undefined): void => {
    this.timer = setInterval(() => {
      if (this.measuring) return;
      this.measuring = true;
      this.over()
        .then(over => over && killGroup(pid))
        .catch(() => undefined)
        .finally(() => (this.measuring = false));
    }, POLL_MS);
  };

  /** After git ended: throws when what it downloaded is over the limit. */
  async check(): Promise<void> {
    if (await this.over()) throw new Error("over the per-fetch limit");
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async discard(): Promise<void> {
    for (const name of await this.added()) await rm(join(this.dir, name), { force: true });
  }

  /**
   * After a fetch that failed (timed out, killed, cut short): removes the temporary files it left
   * (tmp_pack_*, tmp_idx_*), which git never finishes or removes and the disk bound never sees.
   * A pack it completed stays, its objects good.
   */
  async discardTemporary(): Promise<void> {
    for (const name of await this.added())
      if (name.startsWith("tmp_")) await rm(join(this.dir, name), { force: true });
  }

  private async over(): Promise<boolean> {
    let total = 0;
    for (const name of await this.added()) {
      if (!name.endsWith(".pack") && !name.startsWith("tmp_pack_")) continue;
      total += await stat(join(this.dir, name)).then(
        s => s.size,
        () => 0,
      );
    }
    if (total > this.max) this.exceeded = true;
    return this.exceeded;
  }

  private async added(): Promise<string[]> {
    return (await names(this.dir)).filter(n => !this.before.has(n));
  }
}

async function names(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

/** Ends a process group (a network git call and the helpers under it). */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}
