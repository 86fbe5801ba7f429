import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binDir } from "../cluster/paths";
import { Steps } from "../progress";
import { ensureNodeClusterBinaries, startNodeCluster } from "./cluster";
import { nodeBinary } from "./paths";

/**
 * `npm run node:up` (root): a control plane and a real node in the foreground, for
 * `npx pepr deploy` or kubectl by hand. Ctrl-C stops the Pods, the node and the control plane.
 */
async function main(): Promise<void> {
  const abort = () => process.exit(130);
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  const steps = new Steps(9);
  await ensureNodeClusterBinaries(what => steps.step(what));
  const stateDir = mkdtempSync(join(tmpdir(), "porch-pepr-node-"));
  const cluster = await startNodeCluster(stateDir, { onStep: what => steps.step(what) });
  process.off("SIGINT", abort);
  process.off("SIGTERM", abort);
  const stop = async () => {
    process.stderr.write("\nstopping...\n");
    await cluster.stop();
    rmSync(stateDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  const ctr = `${nodeBinary("ctr")} --address ${cluster.node.containerdSocket} -n k8s.io`;
  process.stdout.write(
    [
      "",
      `export KUBECONFIG=${cluster.controlPlane.kubeconfig}`,
      `export PATH=${binDir()}:$PATH   # kubectl matching the control plane`,
      "",
      "No registry is reachable: import images, then use imagePullPolicy IfNotPresent or Never:",
      `  ${ctr} images import <oci-or-docker-archive.tar>`,
      `  ${ctr} images ls -q`,
      "",
      `node ${cluster.node.name} is Ready: logs in ${stateDir}/logs; press Ctrl-C to stop.`,
      "",
    ].join("\n"),
  );
}

main().catch(e => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
