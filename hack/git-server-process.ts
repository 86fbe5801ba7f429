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
): Promise<GitServer> {
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
  const proc = startProcess(name, process.execPath, args, logDir);
  await waitFor(`${name} listening`, () => listening(port, host), 30_000, proc);
  const url = `http://${host}:${port}`;
  return {
    url,
    port,
    root,
    close: () => proc.stop(),
    createBareRepo: (repo, opts) => createBareRepo(root, url, repo, opts),
  };
}
