// Kills the module's controller process at random moments: SIGKILL (no shutdown hook runs, as
// an OOM kill or a node loss), each time once the restarted process serves /healthz again.
import { get } from "node:https";
import { randomMs, sleep, type FaultContext } from "./context";

function healthy(ctx: FaultContext): Promise<boolean> {
  return new Promise(resolve => {
    get(`https://localhost:${ctx.env.module.ports.watcher}/healthz`, { ca: ctx.ca }, res => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on("error", () => resolve(false));
  });
}

/** Resolves once a watcher other than `killed` is up and healthy. */
export async function watcherBack(ctx: FaultContext, killed?: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const pid = ctx.pidOf("watcher");
    if (pid !== undefined && pid !== killed && (await healthy(ctx))) return;
    await sleep(200);
  }
  throw new Error("the watcher did not come back within 120s of a kill");
}

export interface Killer {
  /** Kills done so far. */
  readonly kills: number;
  /** Stops after the kill in progress; resolves once the watcher is back. */
  stop(): Promise<void>;
  /** Resolves once `total` kills are done (the killer then stops by itself). */
  done: Promise<void>;
}

/**
 * Runs `attempt` until it has killed `total` times or stop() was called. An attempt resolves
 * with whether it killed (false: nothing to kill this time); it is given the kills so far and
 * whether stop() was called meanwhile, so it can give up between its steps.
 */
export function killLoop(
  total: number,
  attempt: (killed: number, stopped: () => boolean) => Promise<boolean>,
): Killer {
  let stopped = false;
  let kills = 0;
  const done = (async () => {
    while (!stopped && kills < total) if (await attempt(kills, () => stopped)) kills += 1;
  })();
  return {
    get kills() {
      return kills;
    },
    stop: async () => {
      stopped = true;
      await done;
    },
    done,
  };
}

/**
 * Kills the watcher `total` times, each `minMs`–`maxMs` after it came back, until stopped.
 */
export function startKiller(
  ctx: FaultContext,
  total: number,
  window: { minMs: number; maxMs: number },
): Killer {
  return killLoop(total, async (killed, stopped) => {
    await sleep(randomMs(window.minMs, window.maxMs));
    const pid = ctx.pidOf("watcher");
    if (stopped() || pid === undefined) return false;
    process.kill(pid, "SIGKILL");
    ctx.log(`watcher killed (${killed + 1}/${total})`);
    await watcherBack(ctx, pid);
    return true;
  });
}
