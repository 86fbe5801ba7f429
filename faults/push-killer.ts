// Kills the git server process mid-push: it tails the server's log for the line it writes as a
// git-receive-pack POST starts (hack/git-server.ts), SIGKILLs it within 0–150 ms of that line
// (before, during or after receive-pack took the pack: each leaves git in another state), and
// starts it again on the same port and root after a short random pause.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { PUSH_STARTED } from "../hack/git-server";
import { randomMs, sleep, type FaultContext } from "./context";
import { killLoop, type Killer } from "./killer";

/** The server's log; startProcess appends to it across restarts. */
const logOf = (ctx: FaultContext) => join(ctx.env.stateDir, "logs", "git-server.log");

/** How far into the log a reader has come, in bytes. */
class LogTail {
  #offset: number;
  constructor(private readonly file: string) {
    this.#offset = statSync(file).size;
  }

  /** Whether a push started since the last call (reads what was appended meanwhile). */
  pushStarted(): boolean {
    const size = statSync(this.file).size;
    if (size <= this.#offset) return false;
    const buf = Buffer.alloc(size - this.#offset);
    const fd = openSync(this.file, "r");
    try {
      readSync(fd, buf, 0, buf.length, this.#offset);
    } finally {
      closeSync(fd);
    }
    this.#offset = size;
    return buf.toString("utf8").includes(PUSH_STARTED);
  }
}

/** Like the watcher's killer: stop() stops waiting for the next push once the server runs again. */
export type PushKiller = Killer;

/** The pause before the killed server is started again. */
const RESTART_PAUSE = { minMs: 300, maxMs: 3000 };
/** Between the push's first line and the kill: the pack may be half read, or refs half moved. */
const KILL_DELAY = { minMs: 0, maxMs: 150 };
const POLL_MS = 10;

/** Kills the git server `total` times, each as a push starts, until stopped. */
export function startPushKiller(ctx: FaultContext, total: number, first = 0): PushKiller {
  const tail = new LogTail(logOf(ctx));
  return killLoop(total, async killed => {
    if (!tail.pushStarted()) {
      await sleep(POLL_MS);
      return false;
    }
    await sleep(randomMs(KILL_DELAY.minMs, KILL_DELAY.maxMs));
    await ctx.env.git.kill();
    ctx.log(`git server killed mid-push (${first + killed + 1})`);
    await sleep(randomMs(RESTART_PAUSE.minMs, RESTART_PAUSE.maxMs));
    await ctx.env.git.restart();
    tail.pushStarted(); // lines of the killed server's last moments are no new push
    return true;
  });
}
