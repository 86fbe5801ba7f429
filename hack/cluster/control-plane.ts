import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { get } from "node:https";
import { join } from "node:path";
import { freePort, httpOk, Managed, startProcess, waitFor } from "../processes";
import { CertFiles, writeCerts } from "./certs";
import { binary } from "./paths";

/** The Service IP range: the `kubernetes` Service is its first address (10.0.0.1). */
export const SERVICE_CIDR = "10.0.0.0/24";

/**
 * What a real node (hack/node/) needs of the control plane; without it, the embedded default
 * runs as before: API server on loopback, no kubelet, three controllers.
 */
export interface NodeSupport {
  /**
   * Address the API server binds and advertises instead of 127.0.0.1: Pods reach it there
   * through the `kubernetes` Service (an endpoint may not be a loopback address), so it must
   * exist on this machine before the API server starts (the node's bridge address).
   */
  address: string;
}

export interface ControlPlane {
  kubeconfig: string;
  server: string;
  certs: CertFiles;
  stateDir: string;
  processes: Managed[];
  /**
   * Stops kube-apiserver (SIGKILL: no graceful shutdown, as a crashed or evicted server) and
   * starts it again on the same address; resolves once it is ready (the fault campaign).
   */
  restartApiserver(): Promise<void>;
  stop(): Promise<void>;
}

function httpsOk(url: string, ca: Buffer): Promise<boolean> {
  return new Promise(resolve => {
    get(url, { ca }, res => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on("error", () => resolve(false));
  });
}

function b64(path: string): string {
  return readFileSync(path).toString("base64");
}

/** Credentials of a kubeconfig user: the admin's client certificate, or a bearer token. */
export type KubeconfigUser = { certificate: string; key: string } | { token: string };

/** Writes a one-context kubeconfig for the local API server. */
export function writeKubeconfig(
  path: string,
  server: string,
  caCert: string,
  user: KubeconfigUser,
): void {
  const credentials =
    "token" in user
      ? [`    token: ${user.token}`]
      : [
          `    client-certificate-data: ${b64(user.certificate)}`,
          `    client-key-data: ${b64(user.key)}`,
        ];
  const config = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: local",
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(caCert)}`,
    "users:",
    "- name: user",
    "  user:",
    ...credentials,
    "contexts:",
    "- name: local",
    "  context: {cluster: local, user: user, namespace: default}",
    "current-context: local",
    "",
  ].join("\n");
  // Written via rename so a reader never sees half a file.
  writeFileSync(`${path}.tmp`, config, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

async function startEtcd(
  stateDir: string,
  logDir: string,
): Promise<{ proc: Managed; url: string }> {
  const [client, peer] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${client}`;
  const peerUrl = `http://127.0.0.1:${peer}`;
  const proc = startProcess(
    "etcd",
    binary("etcd"),
    [
      "--name=local",
      `--data-dir=${join(stateDir, "etcd")}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=local=${peerUrl}`,
      // A throwaway store: durability buys nothing here and fsync dominates on slow disks.
      "--unsafe-no-fsync",
      "--log-level=error",
    ],
    logDir,
  );
  await waitFor("etcd", () => httpOk(`${url}/health`), 30_000, proc);
  return { proc, url };
}

/**
 * Admission plugins off by default upstream but on in hardened distributions (OpenShift):
 * with OwnerReferencesPermissionEnforcement, setting blockOwnerDeletion on an owner reference
 * needs `update` on the owner's `finalizers` subresource, so the shipped RBAC is tested for it.
 */
const HARDENED_ADMISSION = "OwnerReferencesPermissionEnforcement";

/**
 * The API server flags a node changes: its address; the `kubernetes` Service's endpoint kept
 * (lease reconciler, the default); kubelets authorized by the Node authorizer and limited by
 * NodeRestriction, as on any cluster; the API server's client cert for kubelets (logs, exec).
 */
export function apiserverAddressing(certs: CertFiles, node?: NodeSupport): string[] {
  if (!node) {
    // No default route in sandboxes: advertise loopback and skip the endpoints reconciler.
    return [
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      "--endpoint-reconciler-type=none",
      "--authorization-mode=RBAC",
      `--enable-admission-plugins=${HARDENED_ADMISSION}`,
    ];
  }
  return [
    `--bind-address=${node.address}`,
    `--advertise-address=${node.address}`,
    "--authorization-mode=Node,RBAC",
    `--enable-admission-plugins=NodeRestriction,${HARDENED_ADMISSION}`,
    `--kubelet-client-certificate=${certs.adminCert}`,
    `--kubelet-client-key=${certs.adminKey}`,
    "--kubelet-preferred-address-types=InternalIP",
  ];
}

async function startApiserver(
  etcdUrl: string,
  certs: CertFiles,
  logDir: string,
  node?: NodeSupport,
  /** The port of the server being restarted; a free one otherwise. */
  samePort?: number,
): Promise<{ proc: Managed; server: string; port: number }> {
  const port = samePort ?? (await freePort());
  const server = `https://${node?.address ?? "127.0.0.1"}:${port}`;
  const proc = startProcess(
    "kube-apiserver",
    binary("kube-apiserver"),
    [
      `--etcd-servers=${etcdUrl}`,
      `--secure-port=${port}`,
      ...apiserverAddressing(certs, node),
      `--tls-cert-file=${certs.apiserverCert}`,
      `--tls-private-key-file=${certs.apiserverKey}`,
      `--client-ca-file=${certs.caCert}`,
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      `--service-account-key-file=${certs.serviceAccountPub}`,
      `--service-account-signing-key-file=${certs.serviceAccountKey}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      "--allow-privileged=true",
      // PORCH_PEPR_APISERVER_PROFILING=1 serves /debug/pprof (to profile the API server under npm run bench).
      `--profiling=${process.env.PORCH_PEPR_APISERVER_PROFILING ? "true" : "false"}`,
      // One client (the operator) on a 2-core box: fairness queuing only adds 429s.
      "--enable-priority-and-fairness=false",
    ],
    logDir,
  );
  const ca = readFileSync(certs.caCert);
  await waitFor("kube-apiserver /readyz", () => httpsOk(`${server}/readyz`, ca), 90_000, proc);
  return { proc, server, port };
}

/**
 * Without a node: garbage collection makes ownerReference cascades real; the namespace
 * controller makes namespace deletion finish; service accounts exist for anything that expects
 * them. With a node, every default controller, as on a cluster: Deployments, ReplicaSets,
 * EndpointSlices, node lifecycle (it lifts the not-ready taint), and the kube-root-ca.crt
 * ConfigMap that every Pod's service-account volume mounts.
 */
export function controllerFlags(certs: CertFiles, node?: NodeSupport): string[] {
  if (!node) {
    return [
      "--controllers=garbage-collector-controller,namespace-controller,serviceaccount-controller",
    ];
  }
  return ["--controllers=*", `--root-ca-file=${certs.caCert}`];
}

function startControllerManager(
  kubeconfig: string,
  certs: CertFiles,
  logDir: string,
  node?: NodeSupport,
): Managed {
  return startProcess(
    "kube-controller-manager",
    binary("kube-controller-manager"),
    [
      `--kubeconfig=${kubeconfig}`,
      "--leader-elect=false",
      "--secure-port=0",
      ...controllerFlags(certs, node),
      "--kube-api-qps=100",
      "--kube-api-burst=200",
    ],
    logDir,
  );
}

export function kubectl(kubeconfig: string, args: string[], input?: string): string {
  return execFileSync(binary("kubectl"), args, {
    env: { ...process.env, KUBECONFIG: kubeconfig },
    input,
    stdio: ["pipe", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  }).toString();
}

/**
 * Starts etcd, kube-apiserver and kube-controller-manager from the cached upstream binaries.
 * `beforeControllers` runs once the API serves and before the controller manager starts: the
 * garbage collector only notices CRDs created after it started on its 30 s resync, so CRDs
 * are installed there. `node` prepares it for a real node (hack/node/).
 */
export async function startControlPlane(
  stateDir: string,
  beforeControllers: (kubeconfig: string) => Promise<void> | void = () => {},
  onStep: (what: string) => void = () => {},
  node?: NodeSupport,
): Promise<ControlPlane> {
  const logDir = join(stateDir, "logs");
  mkdirSync(logDir, { recursive: true });
  const certs = writeCerts(stateDir, node ? [`IP:${node.address}`] : []);
  const processes: Managed[] = [];
  const stop = async () => {
    for (const p of processes.reverse()) await p.stop();
  };
  try {
    onStep("starting etcd");
    const etcd = await startEtcd(stateDir, logDir);
    processes.push(etcd.proc);
    onStep("starting kube-apiserver");
    const api = await startApiserver(etcd.url, certs, logDir, node);
    processes.push(api.proc);
    const kubeconfig = join(stateDir, "admin.kubeconfig");
    writeKubeconfig(kubeconfig, api.server, certs.caCert, {
      certificate: certs.adminCert,
      key: certs.adminKey,
    });
    await waitFor(
      "namespace default",
      async () => kubectl(kubeconfig, ["get", "namespace", "default", "-o", "name"]).length > 0,
      60_000,
    );
    await beforeControllers(kubeconfig);
    onStep("starting kube-controller-manager");
    processes.push(startControllerManager(kubeconfig, certs, logDir, node));
    const restartApiserver = async () => {
      const i = processes.findIndex(p => p.name === "kube-apiserver");
      processes[i].child.kill("SIGKILL");
      await processes[i].stop();
      processes[i] = (await startApiserver(etcd.url, certs, logDir, node, api.port)).proc;
    };
    return { kubeconfig, server: api.server, certs, stateDir, processes, restartApiserver, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
