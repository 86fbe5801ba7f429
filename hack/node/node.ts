import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { issueClientCert } from "../cluster/certs";
import { ControlPlane, kubectl, writeKubeconfig } from "../cluster/control-plane";
import { freePort, httpOk, Managed, startProcess, waitFor } from "../processes";
import {
  cniConfig,
  containerdConfig,
  kubeletConfig,
  kubeProxyConfig,
  NODE_NETWORK,
  schedulerConfig,
} from "./config";
import { binaryImage, ociArchive } from "./oci";
import { nodeBinary, nodeBinDir } from "./paths";

export const NODE_NAME = "porch-pepr-node";

export interface Node {
  name: string;
  /** containerd's socket, for `ctr --address`. */
  containerdSocket: string;
  /** Runs ctr in the CRI's namespace (k8s.io) against this node's containerd. */
  ctr(args: string[]): string;
  /** Imports an OCI image archive so Pods can run it with imagePullPolicy Never/IfNotPresent. */
  importImage(archive: string): void;
  /** Writes and imports a one-binary image built from hack/localnode/images/<name>. */
  importBinaryImage(name: string, user?: string): string;
  processes: Managed[];
  stop(): Promise<void>;
}

/** Image reference of one of our binaries: tagged by content, so a rebuilt binary re-imports. */
export function imageName(name: string, binary: Buffer): string {
  const tag = createHash("sha256").update(binary).digest("hex").slice(0, 12);
  return `localhost/porch-pepr/${name}:${tag}`;
}

interface NodeCredentials {
  kubelet: string;
  kubeProxy: string;
  scheduler: string;
}

/**
 * Client certificates signed by the control plane's CA, as a cluster's installer issues them:
 * the kubelet is `system:node:<name>` in `system:nodes` (the Node authorizer's subject), and
 * kube-proxy and the scheduler are the users the default RBAC bindings name.
 */
function writeCredentials(cp: ControlPlane, dir: string): NodeCredentials {
  const kubeconfig = (file: string, name: string, subject: string) => {
    const user = issueClientCert(dir, name, subject, cp.certs);
    const path = join(dir, file);
    writeKubeconfig(path, cp.server, cp.certs.caCert, user);
    return path;
  };
  return {
    kubelet: kubeconfig(
      "kubelet.kubeconfig",
      "kubelet",
      `/O=system:nodes/CN=system:node:${NODE_NAME}`,
    ),
    kubeProxy: kubeconfig("kube-proxy.kubeconfig", "kube-proxy", "/CN=system:kube-proxy"),
    scheduler: kubeconfig("scheduler.kubeconfig", "scheduler", "/CN=system:kube-scheduler"),
  };
}

function ctrRunner(socket: string): (args: string[]) => string {
  return args =>
    execFileSync(nodeBinary("ctr"), ["--address", socket, "--namespace", "k8s.io", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    }).toString();
}

async function startContainerd(
  dir: string,
  logDir: string,
  sandboxImage: string,
): Promise<{ proc: Managed; socket: string }> {
  const socket = join(dir, "containerd", "containerd.sock");
  const cniConfDir = join(dir, "cni", "net.d");
  mkdirSync(cniConfDir, { recursive: true });
  writeFileSync(join(cniConfDir, "10-porch-pepr.conflist"), cniConfig(join(dir, "cni", "ipam")));
  const config = join(dir, "containerd.toml");
  writeFileSync(
    config,
    containerdConfig({
      root: join(dir, "containerd", "root"),
      state: join(dir, "containerd", "state"),
      socket,
      runc: nodeBinary("runc"),
      runcRoot: join(dir, "containerd", "runc"),
      cniBinDir: join(nodeBinDir(), "cni"),
      cniConfDir,
      sandboxImage,
    }),
  );
  // containerd finds its shim (containerd-shim-runc-v2) on PATH; the CNI plugins need iptables.
  const env = {
    ...process.env,
    PATH: `${nodeBinDir()}:${process.env.PATH ?? "/usr/sbin:/usr/bin"}`,
  };
  const proc = startProcess(
    "containerd",
    nodeBinary("containerd"),
    ["--config", config],
    logDir,
    env,
  );
  const ctr = ctrRunner(socket);
  await waitFor(
    "containerd",
    async () => existsSync(socket) && ctr(["version"]).length > 0,
    30_000,
    proc,
  );
  return { proc, socket };
}

function startScheduler(dir: string, kubeconfig: string, logDir: string): Managed {
  const config = join(dir, "scheduler.json");
  writeFileSync(config, schedulerConfig(kubeconfig));
  return startProcess(
    "kube-scheduler",
    nodeBinary("kube-scheduler"),
    [`--config=${config}`, "--secure-port=0"],
    logDir,
  );
}

async function startKubelet(
  cp: ControlPlane,
  dir: string,
  kubeconfig: string,
  socket: string,
  logDir: string,
): Promise<Managed> {
  const root = join(dir, "kubelet");
  mkdirSync(root, { recursive: true });
  const config = join(dir, "kubelet.json");
  writeFileSync(
    config,
    kubeletConfig({
      containerdSocket: socket,
      clientCaFile: cp.certs.caCert,
      nodeIp: NODE_NETWORK.gateway,
      port: await freePort(),
      healthzPort: await freePort(),
      podLogsDir: join(dir, "pod-logs"),
    }),
  );
  const proc = startProcess(
    "kubelet",
    nodeBinary("kubelet"),
    [
      `--config=${config}`,
      `--kubeconfig=${kubeconfig}`,
      `--root-dir=${root}`,
      `--cert-dir=${join(root, "pki")}`,
      `--node-ip=${NODE_NETWORK.gateway}`,
      `--hostname-override=${NODE_NAME}`,
    ],
    logDir,
  );
  const ready = () =>
    kubectl(cp.kubeconfig, [
      "get",
      "node",
      NODE_NAME,
      "-o",
      'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
    ]).trim() === "True";
  await waitFor(`node ${NODE_NAME} Ready`, async () => ready(), 120_000, proc);
  return proc;
}

async function startKubeProxy(dir: string, kubeconfig: string, logDir: string): Promise<Managed> {
  const config = join(dir, "kube-proxy.json");
  const healthzPort = await freePort();
  writeFileSync(
    config,
    kubeProxyConfig({
      kubeconfig,
      nodeName: NODE_NAME,
      healthzPort,
      metricsPort: await freePort(),
    }),
  );
  const proc = startProcess("kube-proxy", nodeBinary("kube-proxy"), [`--config=${config}`], logDir);
  await waitFor(
    "kube-proxy",
    () => httpOk(`http://127.0.0.1:${healthzPort}/healthz`),
    60_000,
    proc,
  );
  return proc;
}

/** Mount points under `dir` (overlay rootfs, netns, kubelet tmpfs), deepest first. */
function mountsUnder(dir: string): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map(line => line.split(" ")[4])
    .filter((point): point is string => !!point && point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

/** PIDs of the shims our containerd started: their command line names our socket. */
function shimsOf(socket: string): number[] {
  return readdirSync("/proc")
    .filter(entry => /^\d+$/.test(entry))
    .filter(pid => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        return cmdline.includes("containerd-shim-runc-v2") && cmdline.includes(socket);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** `iptables -S` output as arguments again: words, with "quoted comments" as one word. */
export function ruleWords(rule: string): string[] {
  return (rule.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? []).map(word =>
    word.startsWith('"') ? word.slice(1, -1).replace(/\\(.)/g, "$1") : word,
  );
}

/**
 * Removes the iptables chains the kubelet leaves (KUBE-FIREWALL, jumped to from INPUT and
 * OUTPUT; the KUBE-KUBELET-CANARY and KUBE-IPTABLES-HINT markers) after `kube-proxy --cleanup`
 * has removed its own: every KUBE-* chain, IPv4 and IPv6, since one node runs per machine.
 */
function removeKubeChains(): void {
  const run = (command: string, args: string[]) => {
    try {
      return execFileSync(command, args, { stdio: ["ignore", "pipe", "ignore"] }).toString();
    } catch {
      return "";
    }
  };
  for (const command of ["iptables", "ip6tables"]) {
    for (const table of ["filter", "nat", "mangle"]) {
      const rules = run(command, ["-w", "-t", table, "-S"]).split("\n");
      for (const rule of rules.filter(r => r.startsWith("-A ") && / -j KUBE-/.test(r))) {
        run(command, ["-w", "-t", table, "-D", ...ruleWords(rule.slice(3))]);
      }
      const chains = rules.filter(r => r.startsWith("-N KUBE-")).map(r => r.slice(3));
      for (const chain of chains) run(command, ["-w", "-t", table, "-F", chain]);
      for (const chain of chains) run(command, ["-w", "-t", table, "-X", chain]);
    }
  }
}

/** Removes the kubelet's QoS cgroups (it leaves them behind) once their tasks are gone. */
function removeKubepodsCgroups(): void {
  const removeTree = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory()) removeTree(join(path, entry.name));
    }
    rmdirSync(path);
  };
  for (const controller of readdirSync("/sys/fs/cgroup")) {
    const path = join("/sys/fs/cgroup", controller, "kubepods");
    try {
      if (existsSync(path)) removeTree(path);
    } catch {
      // A cgroup still holding a task cannot be removed; leave it.
    }
  }
}

/**
 * Stops the node and leaves the machine as it found it: the Pods' containers killed through
 * containerd (the kubelet is already gone), leftover shims ended by their PIDs, mounts under the
 * node's directory unmounted, kube-proxy's and the kubelet's iptables chains removed. The bridge
 * stays: the API server still listens on its address; deleteBridge() once that has stopped.
 */
async function teardown(
  dir: string,
  socket: string,
  processes: Managed[],
  runDirExisted: boolean,
): Promise<void> {
  const [containerd, ...rest] = processes;
  for (const p of rest.reverse()) await p.stop();
  const ctr = ctrRunner(socket);
  try {
    // --force kills each Pod's processes (SIGKILL) and waits for them before deleting.
    const tasks = ctr(["tasks", "ls", "-q"]).split("\n").filter(Boolean);
    if (tasks.length > 0) ctr(["tasks", "delete", "--force", ...tasks]);
  } catch {
    // containerd is gone or a task went meanwhile: the shims are ended below.
  }
  await containerd?.stop();
  for (const pid of shimsOf(socket)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Exited meanwhile.
    }
  }
  for (const point of mountsUnder(dir)) {
    try {
      execFileSync("umount", ["--lazy", point], { stdio: "ignore" });
    } catch {
      // Gone with its parent.
    }
  }
  try {
    execFileSync(nodeBinary("kube-proxy"), ["--cleanup"], { stdio: "ignore" });
  } catch {
    // Nothing to clean.
  }
  removeKubeChains();
  removeKubepodsCgroups();
  // The shims' sockets are under /run/containerd/s whatever the config says; leave no empty
  // directories behind unless a containerd of the machine's own had them first.
  if (!runDirExisted) {
    for (const path of ["/run/containerd/s", "/run/containerd"]) {
      try {
        rmdirSync(path);
      } catch {
        // Not empty or not there.
      }
    }
  }
}

/**
 * Starts a node against `cp`: containerd (own root, state and socket under the control plane's
 * state dir), the pause image imported as its sandbox, the CNI config, kube-scheduler, the
 * kubelet (waits for the Node to be Ready) and kube-proxy in iptables mode. The bridge must
 * exist already (createBridge(), before the control plane: the API server binds its address).
 */
export async function startNode(
  cp: ControlPlane,
  onStep: (what: string) => void = () => {},
): Promise<Node> {
  if (process.getuid?.() !== 0) throw new Error("a node needs root (mounts, cgroups, iptables)");
  const dir = join(cp.stateDir, "node");
  const logDir = join(cp.stateDir, "logs");
  mkdirSync(dir, { recursive: true });
  const credentials = writeCredentials(cp, dir);
  const pause = readFileSync(nodeBinary("pause", "images"));
  const sandboxImage = imageName("pause", pause);
  const processes: Managed[] = [];
  let socket = "";
  const runDirExisted = existsSync("/run/containerd");
  const stop = () => teardown(dir, socket, processes, runDirExisted);
  try {
    onStep("starting containerd");
    const containerd = await startContainerd(dir, logDir, sandboxImage);
    socket = containerd.socket;
    processes.push(containerd.proc);
    const ctr = ctrRunner(socket);
    const importImage = (archive: string) => {
      ctr(["images", "import", archive]);
    };
    const importBinaryImage = (name: string, user?: string) => {
      const binary = readFileSync(nodeBinary(name, "images"));
      const ref = imageName(name, binary);
      const archive = join(dir, `${name}.oci.tar`);
      writeFileSync(archive, ociArchive(binaryImage(ref, binary, user)));
      importImage(archive);
      return ref;
    };
    importBinaryImage("pause");
    onStep("starting kube-scheduler");
    processes.push(startScheduler(dir, credentials.scheduler, logDir));
    onStep("starting the kubelet");
    processes.push(await startKubelet(cp, dir, credentials.kubelet, socket, logDir));
    onStep("starting kube-proxy");
    processes.push(await startKubeProxy(dir, credentials.kubeProxy, logDir));
    return {
      name: NODE_NAME,
      containerdSocket: socket,
      ctr,
      importImage,
      importBinaryImage,
      processes,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
