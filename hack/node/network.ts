import { execFileSync } from "node:child_process";
import { NODE_NETWORK } from "./config";

function ip(args: string[]): void {
  execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });
}

function bridgeExists(): boolean {
  try {
    execFileSync("ip", ["link", "show", NODE_NETWORK.bridge], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Removes the node's bridge (its Pods' veths go with their network namespaces). */
export function deleteBridge(): void {
  if (bridgeExists()) ip(["link", "delete", NODE_NETWORK.bridge]);
}

/**
 * Creates the node's bridge with the gateway address before anything starts: the API server
 * binds that address (Pods reach it there), and the CNI bridge plugin adopts an existing
 * bridge. A bridge left by a run that was killed is replaced. One node per machine.
 */
export function createBridge(): void {
  const { bridge, gateway, prefix } = NODE_NETWORK;
  deleteBridge();
  ip(["link", "add", "name", bridge, "type", "bridge"]);
  ip(["addr", "add", `${gateway}/${prefix}`, "dev", bridge]);
  ip(["link", "set", bridge, "up"]);
}
