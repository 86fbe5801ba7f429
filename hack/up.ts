import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { kubectl } from "./cluster/control-plane";
import { binDir, repoRoot } from "./cluster/paths";
import { createDemoRepositories, manifestsYaml } from "./demo/repositories";
import { createSeedRepositories } from "./demo/seed";
import { startPodsEnvironment } from "./deploy/environment";
import { startEnvironment } from "./environment";
import { Steps } from "./progress";

/** What the foreground session prints and stops. */
interface Session {
  kubeconfig: string;
  stateDir: string;
  gitUrl: string;
  /** Where to read the module's logs. */
  logs: string;
  /** More to try in this mode, one line each. */
  more: string[];
  stop(): Promise<void>;
}

/** The embedded default: the module as host processes against a local control plane. */
async function startProcesses(): Promise<Session> {
  const env = await startEnvironment({ purpose: "dev" });
  return {
    kubeconfig: env.kubeconfig,
    stateDir: env.stateDir,
    gitUrl: env.git.url,
    logs: `${env.stateDir}/logs`,
    more: [],
    stop: () => env.stop(),
  };
}

/**
 * `--pods`: the module installed as a user installs it (`npx pepr deploy`), its Pods on a real
 * local node, the demo repositories on git servers the Pods reach. Root only.
 */
async function startPods(): Promise<Session> {
  if (process.getuid?.() !== 0)
    throw new Error("npm start -- --pods needs root: it starts a real node (bridge, containerd)");
  const stateDir = join(repoRoot, ".local", "env-pods");
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const steps = new Steps();
  const env = await startPodsEnvironment(stateDir, what => steps.step(what));
  process.env.PATH = `${binDir()}:${process.env.PATH ?? ""}`;
  try {
    steps.step("creating the demo repositories and registering them");
    const cacheRoot = join(stateDir, "demo-cache");
    const [demo, seed] = await Promise.all([
      createDemoRepositories(env.git, { cacheRoot }),
      createSeedRepositories(env.git, { cacheRoot }),
    ]);
    kubectl(env.kubeconfig, ["apply", "-f", "-"], manifestsYaml([...demo.manifests, ...seed]));
  } catch (e) {
    await env.stop();
    throw e;
  }
  return {
    kubeconfig: env.kubeconfig,
    stateDir,
    gitUrl: env.git.url,
    logs: "kubectl logs -n pepr-system deploy/pepr-porch-pepr-watcher (and deploy/pepr-porch-pepr)",
    more: [
      "function images as Pods (README, Functions as Pods): kubectl apply -f manifests/function-pods.yaml,",
      `then a catalog entry for ${env.functionImages.labeller.ref}`,
      `with pod.wrapperImage ${env.functionImages.wrapper.ref} (both are in the node's containerd)`,
    ],
    stop: () => env.stop(),
  };
}

/**
 * `npm start` (`-- --pods` for the real install): the operator on the embedded default. Stays
 * in the foreground; Ctrl-C stops the module, the control plane and everything else it started.
 */
async function main(): Promise<void> {
  // Interrupted while starting: exit through process.exit, whose handler kills the children.
  const abort = () => process.exit(130);
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  const session = process.argv.includes("--pods") ? await startPods() : await startProcesses();
  process.off("SIGINT", abort);
  process.off("SIGTERM", abort);
  const stop = async () => {
    process.stderr.write("\nstopping...\n");
    await session.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  process.stdout.write(
    [
      "",
      `export KUBECONFIG=${session.kubeconfig}`,
      `export PATH=${binDir()}:$PATH   # kubectl matching the control plane`,
      "",
      `git server with the demo repositories: ${session.gitUrl} (blueprints.git, deployments.git)`,
      "try: kubectl get repositories,packagerevisions",
      ...session.more,
      "",
      `porch-pepr is ready: state in ${session.stateDir}; logs: ${session.logs}.`,
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );
}

main().catch(e => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
