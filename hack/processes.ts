import { ChildProcess, spawn } from "node:child_process";
import { openSync } from "node:fs";
import { get as httpGet } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";

export interface Managed {
  name: string;
  child: ChildProcess;
  logFile: string;
  stop(): Promise<void>;
}

/** Asks the kernel for a free loopback port. Racy by nature; callers retry a failed start. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const running = new Set<ChildProcess>();
// A crashed or exiting parent must not leave an apiserver behind: kill what is still running.
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * Starts a long-running child with its output in `<logDir>/<name>.log` (the terminal stays
 * readable; the logs are there when something fails). stop() sends SIGTERM, then SIGKILL.
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  logDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Managed {
  const logFile = join(logDir, `${name}.log`);
  const fd = openSync(logFile, "a");
  const child = spawn(command, args, { env, stdio: ["ignore", fd, fd] });
  running.add(child);
  const exited = new Promise<void>(res =>
    child.once("exit", () => {
      running.delete(child);
      res();
    }),
  );
  return {
    name,
    child,
    logFile,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Whether a plain-HTTP GET of `url` answers 200 (a health endpoint); false on any error. */
export function httpOk(url: string): Promise<boolean> {
  return new Promise(resolve => {
    httpGet(url, res => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on("error", () => resolve(false));
  });
}

/** Polls `probe` until it returns true; fails with the tail of the log if the child died. */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  proc?: Managed,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc && proc.child.exitCode !== null) {
      throw new Error(
        `${what}: ${proc.name} exited with ${proc.child.exitCode}; see ${proc.logFile}`,
      );
    }
    if (await probe().catch(() => false)) return;
    await new Promise(r => setTimeout(r, 250));
  }
  throw new Error(
    `${what}: not ready after ${timeoutMs / 1000}s${proc ? `; see ${proc.logFile}` : ""}`,
  );
}
