import { connect } from "node:net";
import { join } from "node:path";
import { createBareRepo, GitServer } from "./git-server";
import { freePort, startProcess, waitFor } from "./processes";
import { repoRoot } from "./cluster/paths";

function listening(port: number, host: string): Promise<boolean> {
  return new Promise(resolve => {
    const socket = connect(port, host, () => {
      socket.end();
      resolve(true);
    }).on("error", () => resolve(false));
  });
}

/** A git server process that can be killed and started again (the fault campaign). */
export interface GitServerProcess extends GitServer {
  /** SIGKILL: the server dies mid-request, as a crashed one; resolves once it has exited. */
  kill(): Promise<void>;
  /** Starts it again on the same address and root; resolves once it listens. */
  restart(): Promise<void>;
}

/**
 * The git server as a process of its own, like a real one: nothing a test does in its own
 * process (a synchronous `git ls-remote`, say) can stall the server it talks to.
 */
export async function startGitServerProcess(
  name: string,
  root: string,
  logDir: string,
  auth?: { user: string; password: string },
  /** The address to listen on: loopback unless Pods must reach it (a node's bridge address). */
  host = "127.0.0.1",
): Promise<GitServerProcess> {
  const port = await freePort();
  const args = [
    join(repoRoot, "hack", "run-ts.mjs"),
    join(repoRoot, "hack", "git-server.ts"),
    "--root",
    root,
    "--port",
    String(port),
    "--host",
    host,
  ];
  if (auth) args.push("--user", auth.user, "--password", auth.password);
  const start = async () => {
    const started = startProcess(name, process.execPath, args, logDir);
    await waitFor(`${name} listening`, () => listening(port, host), 30_000, started);
    return started;
  };
  let proc = await start();
  const url = `http://${host}:${port}`;
  return {
    url,
    port,
    root,
    close: () => proc.stop(),
    kill: async () => {
      proc.child.kill("SIGKILL");
      await proc.stop();
    },
    restart: async () => {
      proc = await start();
    },
    createBareRepo: (repo, opts) => createBareRepo(root, url, repo, opts),
  };
}
