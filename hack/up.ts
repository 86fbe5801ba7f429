import { startEnvironment } from "./environment";

/**
 * `npm start`: the operator on the embedded default. Stays in the foreground; Ctrl-C stops
 * the module, the control plane and everything else it started.
 */
async function main(): Promise<void> {
  const env = await startEnvironment({ purpose: "dev" });
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
      `porch-pepr is ready: logs in ${env.stateDir}/logs; press Ctrl-C to stop.`,
      "",
    ].join("\n"),
  );
}

main().catch(e => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
