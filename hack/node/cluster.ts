import { ensureBinaries } from "../cluster/build";
import { ControlPlane, startControlPlane } from "../cluster/control-plane";
import { ensureNodeBinaries } from "./build";
import { NODE_NETWORK } from "./config";
import { createBridge, deleteBridge } from "./network";
import { Node, startNode } from "./node";

/** A control plane with one real node: what `npx pepr deploy` needs to run its Pods. */
export interface NodeCluster {
  controlPlane: ControlPlane;
  node: Node;
  stop(): Promise<void>;
}

export interface NodeClusterOptions {
  /** Runs once the API serves, before the controller manager starts (see startControlPlane). */
  beforeControllers?: (kubeconfig: string) => Promise<void> | void;
  onStep?: (what: string) => void;
}

/** Builds what is missing (cached), then control plane and node; see README "A real local node". */
export async function ensureNodeClusterBinaries(onStep: (what: string) => void): Promise<void> {
  onStep("control plane binaries (cached after the first build)");
  await ensureBinaries();
  onStep("node binaries (cached after the first build)");
  await ensureNodeBinaries();
}

/**
 * Starts the bridge, a control plane prepared for a node, and the node, in that order (the API
 * server binds the bridge's address); stop() undoes them in reverse. Root only.
 */
export async function startNodeCluster(
  stateDir: string,
  options: NodeClusterOptions = {},
): Promise<NodeCluster> {
  createBridge();
  let controlPlane: ControlPlane | undefined;
  try {
    controlPlane = await startControlPlane(stateDir, options.beforeControllers, options.onStep, {
      address: NODE_NETWORK.gateway,
    });
    const node = await startNode(controlPlane, options.onStep);
    const cp = controlPlane;
    return {
      controlPlane: cp,
      node,
      async stop() {
        await node.stop();
        await cp.stop();
        deleteBridge();
      },
    };
  } catch (e) {
    await controlPlane?.stop();
    deleteBridge();
    throw e;
  }
}
