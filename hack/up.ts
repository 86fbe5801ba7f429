import { startEnvironment } from "./environment";

/**
 * `npm start`: the operator on the embedded default. Stays in the foreground; Ctrl-C stops
 * the module, the control plane and everything else it started.
 */
async function main(): Promise<void> {
  // Interrupted while starting: exit through process.exit, whose handler kills the children.
  const abort = () => process.exit(130);
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  const env = await startEnvironment({ purpose: "dev" });
  process.off("SIGINT", abort);
  process.off("SIGTERM", abort);
  const stop = async () => {
    process.stderr.write("\nstopping...\n");
    await env.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  process.stdout.write(
    [
      "",
      `export KUBECONFIG=${env.kubeconfig}`,
      `export PATH=${process.env.PATH?.split(":")[0]}:$PATH   # kubectl matching the control plane`,
      "",
      `git server with the demo repositories: ${env.git.url} (blueprints.git, deployments.git)`,
      "try: kubectl get repositories,packagerevisions",
      "",
      `porch-pepr is ready: logs in ${env.stateDir}/logs; press Ctrl-C to stop.`,
      "",
    ].join("\n"),
  );
}

main().catch(e => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
