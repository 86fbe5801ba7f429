import { connect } from "node:net";
import { join } from "node:path";
import { createBareRepo, GitServer } from "./git-server";
import { freePort, startProcess, waitFor } from "./processes";
import { repoRoot } from "./cluster/paths";

function listening(port: number): Promise<boolean> {
  return new Promise(resolve => {
    const socket = connect(port, "127.0.0.1", () => {
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
): Promise<GitServer> {
  const port = await freePort();
  const args = [
    join(repoRoot, "hack", "run-ts.mjs"),
    join(repoRoot, "hack", "git-server.ts"),
    "--root",
    root,
    "--port",
    String(port),
  ];
  if (auth) args.push("--user", auth.user, "--password", auth.password);
  const proc = startProcess(name, process.execPath, args, logDir);
  await waitFor(`${name} listening`, () => listening(port), 30_000, proc);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    root,
    close: () => proc.stop(),
    createBareRepo: (repo, opts) => createBareRepo(root, url, repo, opts),
  };
}
