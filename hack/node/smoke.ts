import { mkdtempSync, rmSync } from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ControlPlane, kubectl, SERVICE_CIDR } from "../cluster/control-plane";
import { KUBERNETES_VERSION } from "../cluster/paths";
import { log, Steps } from "../progress";
import { ensureNodeClusterBinaries, NodeCluster, startNodeCluster } from "./cluster";
import { Node } from "./node";

// `node hack/run-ts.mjs hack/node/smoke.ts` (root): a control plane and a real node, then one
// Pod from an image built here. It passes when the Pod is Ready (its readiness needs an answer
// from the API server through the `kubernetes` Service, with its ServiceAccount token), the
// host reads that answer at the Pod's IP, and the host reaches the Pod through a ClusterIP.

function httpGetText(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { timeout: 5000 }, res => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", chunk => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on("timeout", function (this: { destroy(e: Error): void }) {
        this.destroy(new Error(`GET ${url}: timed out`));
      })
      .on("error", reject);
  });
}

function probeManifest(image: string): string {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "probe", namespace: "default", labels: { app: "probe" } },
    spec: {
      containers: [
        {
          name: "probe",
          image,
          imagePullPolicy: "Never",
          ports: [{ containerPort: 8080 }],
          readinessProbe: { httpGet: { path: "/ready", port: 8080 }, periodSeconds: 1 },
          // What Pepr's controller Pods ask for: the node must be able to give it.
          securityContext: {
            runAsUser: 65532,
            runAsNonRoot: true,
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
            seccompProfile: { type: "RuntimeDefault" },
          },
        },
      ],
    },
  };
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "probe", namespace: "default" },
    spec: { selector: { app: "probe" }, ports: [{ port: 80, targetPort: 8080 }] },
  };
  return JSON.stringify({ apiVersion: "v1", kind: "List", items: [pod, service] });
}

async function retry<T>(what: string, attempt: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${what}: ${e instanceof Error ? e.message : e}`);
      await new Promise(r => setTimeout(r, 500));
    }
  }
}

async function check(cp: ControlPlane, node: Node): Promise<void> {
  const image = node.importBinaryImage("probe", "65532");
  log(`imported ${image}`);
  kubectl(cp.kubeconfig, ["apply", "-f", "-"], probeManifest(image));
  const podStarted = Date.now();
  kubectl(cp.kubeconfig, ["wait", "--for=condition=Ready", "pod/probe", "--timeout=180s"]);
  log(`pod/probe Ready after ${((Date.now() - podStarted) / 1000).toFixed(1)}s`);

  const podIp = kubectl(cp.kubeconfig, ["get", "pod", "probe", "-o", "jsonpath={.status.podIP}"]);
  const answer = await retry(`GET http://${podIp}:8080/apiserver`, async () => {
    const res = await httpGetText(`http://${podIp}:8080/apiserver`);
    if (res.status !== 200) throw new Error(`${res.status} ${res.body}`);
    return JSON.parse(res.body) as { via: string; version: { gitVersion: string } };
  });
  const kubernetesIp = kubectl(cp.kubeconfig, [
    "get",
    "service",
    "kubernetes",
    "-o",
    "jsonpath={.spec.clusterIP}",
  ]);
  if (answer.via !== `${kubernetesIp}:443`) {
    throw new Error(`the Pod reached the API server via ${answer.via}, not ${kubernetesIp}:443`);
  }
  if (answer.version.gitVersion !== `v${KUBERNETES_VERSION}`) {
    throw new Error(`unexpected API server version ${answer.version.gitVersion}`);
  }
  log(
    `host → Pod ${podIp}:8080: the Pod reached API server ${answer.version.gitVersion} via ${answer.via}`,
  );

  const clusterIp = kubectl(cp.kubeconfig, [
    "get",
    "service",
    "probe",
    "-o",
    "jsonpath={.spec.clusterIP}",
  ]);
  const viaService = await retry(`GET http://${clusterIp}/ready`, async () => {
    const res = await httpGetText(`http://${clusterIp}/ready`);
    if (res.status !== 200) throw new Error(`${res.status} ${res.body}`);
    return res.body.trim();
  });
  log(`host → Service probe ${clusterIp}:80 (in ${SERVICE_CIDR}) → Pod: ${viaService}`);

  // The API server itself dials the Pod (as it calls an admission webhook's Pods).
  for (const path of ["pods/probe:8080", "services/probe:80"]) {
    const raw = `/api/v1/namespaces/default/${path}/proxy/ready`;
    const body = kubectl(cp.kubeconfig, ["get", "--raw", raw]).trim();
    if (body !== "ok") throw new Error(`GET ${raw}: ${body}`);
  }
  log("API server → Pod (pods/probe and services/probe proxy): ok");

  // The API server reaches the kubelet (logs, exec go this way).
  const logs = kubectl(cp.kubeconfig, ["logs", "probe"]);
  if (!logs.includes("API server through the kubernetes Service")) {
    throw new Error(`kubectl logs probe:\n${logs}`);
  }
  log("kubectl logs probe: the API server reaches the kubelet");
}

async function main(): Promise<void> {
  const abort = () => process.exit(130);
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  const steps = new Steps(9);
  await ensureNodeClusterBinaries(what => steps.step(what));
  const stateDir = mkdtempSync(join(tmpdir(), "porch-pepr-node-"));
  const started = Date.now();
  let cluster: NodeCluster | undefined;
  let failed = false;
  try {
    cluster = await startNodeCluster(stateDir, { onStep: what => steps.step(what) });
    log(`control plane and node up in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    await check(cluster.controlPlane, cluster.node);
    process.stdout.write("node smoke test passed\n");
  } catch (e) {
    failed = true;
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.stderr.write(`logs: ${join(stateDir, "logs")} (kept)\n`);
  } finally {
    const stopping = Date.now();
    await cluster?.stop();
    log(`stopped in ${((Date.now() - stopping) / 1000).toFixed(1)}s`);
    if (!failed) rmSync(stateDir, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

void main();
