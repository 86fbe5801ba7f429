import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { get } from "node:https";
import { get as httpGet } from "node:http";
import { join } from "node:path";
import { freePort, Managed, startProcess, waitFor } from "../processes";
import { CertFiles, writeCerts } from "./certs";
import { binary } from "./paths";

export interface ControlPlane {
  kubeconfig: string;
  server: string;
  certs: CertFiles;
  stateDir: string;
  processes: Managed[];
  stop(): Promise<void>;
}

function httpOk(url: string): Promise<boolean> {
  return new Promise(resolve => {
    httpGet(url, res => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on("error", () => resolve(false));
  });
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

async function startApiserver(
  etcdUrl: string,
  certs: CertFiles,
  logDir: string,
): Promise<{ proc: Managed; server: string }> {
  const port = await freePort();
  const server = `https://127.0.0.1:${port}`;
  const proc = startProcess(
    "kube-apiserver",
    binary("kube-apiserver"),
    [
      `--etcd-servers=${etcdUrl}`,
      "--bind-address=127.0.0.1",
      `--secure-port=${port}`,
      // No default route in sandboxes: advertise loopback and skip the endpoints reconciler.
      "--advertise-address=127.0.0.1",
      "--endpoint-reconciler-type=none",
      `--tls-cert-file=${certs.apiserverCert}`,
      `--tls-private-key-file=${certs.apiserverKey}`,
      `--client-ca-file=${certs.caCert}`,
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      `--service-account-key-file=${certs.serviceAccountPub}`,
      `--service-account-signing-key-file=${certs.serviceAccountKey}`,
      "--service-cluster-ip-range=10.0.0.0/24",
      "--authorization-mode=RBAC",
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
  return { proc, server };
}

function startControllerManager(kubeconfig: string, logDir: string): Managed {
  return startProcess(
    "kube-controller-manager",
    binary("kube-controller-manager"),
    [
      `--kubeconfig=${kubeconfig}`,
      "--leader-elect=false",
      "--secure-port=0",
      // Garbage collection makes ownerReference cascades real; the namespace controller makes
      // namespace deletion finish; service accounts exist for anything that expects them.
      "--controllers=garbage-collector-controller,namespace-controller,serviceaccount-controller",
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
 * are installed there.
 */
export async function startControlPlane(
  stateDir: string,
  beforeControllers: (kubeconfig: string) => Promise<void> | void = () => {},
  onStep: (what: string) => void = () => {},
): Promise<ControlPlane> {
  const logDir = join(stateDir, "logs");
  mkdirSync(logDir, { recursive: true });
  const certs = writeCerts(stateDir);
  const processes: Managed[] = [];
  const stop = async () => {
    for (const p of processes.reverse()) await p.stop();
  };
  try {
    onStep("starting etcd");
    const etcd = await startEtcd(stateDir, logDir);
    processes.push(etcd.proc);
    onStep("starting kube-apiserver");
    const api = await startApiserver(etcd.url, certs, logDir);
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
    processes.push(startControllerManager(kubeconfig, logDir));
    return { kubeconfig, server: api.server, certs, stateDir, processes, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
