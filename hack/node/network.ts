import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
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

const ipForward = "/proc/sys/net/ipv4/ip_forward";
/** The machine's ip_forward before the node: the CNI bridge plugin turns it on for its gateway. */
let ipForwardBefore: string | undefined;

/** Removes the node's bridge (its Pods' veths go with their network namespaces). */
export function deleteBridge(): void {
  if (bridgeExists()) ip(["link", "delete", NODE_NETWORK.bridge]);
  if (ipForwardBefore !== undefined) writeFileSync(ipForward, ipForwardBefore);
}

/**
 * Creates the node's bridge with the gateway address before anything starts: the API server
 * binds that address (Pods reach it there), and the CNI bridge plugin adopts an existing
 * bridge. A bridge left by a run that was killed is replaced. One node per machine.
 */
export function createBridge(): void {
  const { bridge, gateway, prefix } = NODE_NETWORK;
  deleteBridge();
  ipForwardBefore = readFileSync(ipForward, "utf8").trim();
  ip(["link", "add", "name", bridge, "type", "bridge"]);
  ip(["addr", "add", `${gateway}/${prefix}`, "dev", bridge]);
  ip(["link", "set", bridge, "up"]);
}
