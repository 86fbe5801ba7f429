import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { get } from "node:https";
import { parseAllDocuments } from "yaml";
import { peprStoreCRD } from "pepr/src/lib/assets/store";
import { kubectl } from "../cluster/control-plane";
import { CertFiles } from "../cluster/certs";
import { freePort, Managed, startProcess, waitFor } from "../processes";
import { moduleBundle, moduleManifest } from "./build";
import { moduleKubeconfig } from "./service-account";
import { memoryCgroup, type MemoryCgroup } from "./memory-cgroup";

export interface RunningModule {
  /** The user name the module's processes authenticate as (its ServiceAccount). */
  username: string;
  admission: Managed;
  watcher: Managed;
  /** HTTPS ports on localhost; each serves /healthz and /metrics (admission also the webhook). */
  ports: { admission: number; watcher: number };
  stop(): Promise<void>;
}

interface WebhookConfiguration {
  kind: string;
  webhooks: { clientConfig: { caBundle?: string; url?: string; service?: { path?: string } } }[];
}

/**
 * The webhook configurations `pepr build` generated, pointed at https://localhost:<port>
 * instead of the in-cluster Service: same rules, same failure policy, our CA.
 */
function localWebhooks(
  port: number,
  caCert: string,
): { configs: WebhookConfiguration[]; apiPath: string } {
  const docs = parseAllDocuments(readFileSync(moduleManifest, "utf8")).map(
    d => d.toJSON() as { kind?: string },
  );
  const configs = docs.filter(
    d => d.kind === "MutatingWebhookConfiguration" || d.kind === "ValidatingWebhookConfiguration",
  ) as WebhookConfiguration[];
  let apiPath = "";
  for (const config of configs) {
    for (const hook of config.webhooks) {
      const path = hook.clientConfig.service?.path ?? "";
      apiPath = path.split("/").pop() ?? apiPath;
      hook.clientConfig = {
        url: `https://localhost:${port}${path}`,
        caBundle: readFileSync(caCert).toString("base64"),
      };
    }
  }
  return { configs, apiPath };
}

function healthy(port: number, ca: Buffer): Promise<boolean> {
  return new Promise(resolve => {
    get(`https://localhost:${port}/healthz`, { ca }, res => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on("error", () => resolve(false));
  });
}

/**
 * Runs the built module the way `npx pepr deploy` runs it, as host processes: one admission
 * server (the webhook) and one watcher (the controllers), each its own Node process, restarted
 * when it exits, both authenticated as the module's ServiceAccount under the RBAC the build
 * generated. `<logDir>/module-watcher.pid` names the current controller process, so a test can
 * kill it in the middle of a reconcile.
 */
export async function startModule(
  cluster: { kubeconfig: string; server: string; certs: CertFiles; stateDir: string },
  logDir: string,
  options: { functionCatalog?: string } = {},
): Promise<RunningModule> {
  const { kubeconfig, certs } = cluster;
  const [admissionPort, watcherPort] = [await freePort(), await freePort()];
  const { configs, apiPath } = localWebhooks(admissionPort, certs.caCert);
  // The administrator's function catalog (docs/function-catalog.md), read when the module starts.
  const catalog = options.functionCatalog !== undefined && {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "porch-pepr-functions", namespace: "pepr-system" },
    data: { "catalog.yaml": options.functionCatalog },
  };
  const objects = [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "pepr-system" } },
    ...(catalog ? [catalog] : []),
    peprStoreCRD,
    ...configs,
  ];
  kubectl(
    kubeconfig,
    ["apply", "--server-side", "--force-conflicts", "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: objects,
    }),
  );

  const identity = moduleKubeconfig(
    { kubeconfig, server: cluster.server, caCert: certs.caCert },
    cluster.stateDir,
  );
  const env = (watch: boolean, port: number): NodeJS.ProcessEnv =>
    moduleProcessEnv(process.env, {
      // Never the admin's: the processes run as the module's ServiceAccount, as in a real install.
      KUBECONFIG: identity.kubeconfig,
      PEPR_WATCH_MODE: String(watch),
      PEPR_API_PATH: apiPath,
      PORCH_PEPR_PORT: String(port),
      SSL_KEY_PATH: certs.webhookKey,
      SSL_CERT_PATH: certs.webhookCert,
      LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
      PEPR_PRETTY_LOGS: "false",
    });
  const ca = readFileSync(certs.caCert);
  // Extra node flags for both processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (bench/).
  const nodeFlags = (process.env.PORCH_PEPR_MODULE_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  const limits = podMemoryLimits();
  let stopping = false;
  const start = async (watch: boolean): Promise<Managed> => {
    const port = watch ? watcherPort : admissionPort;
    const name = watch ? "module-watcher" : "module-admission";
    const run = limits.wrap(name, process.execPath, [...nodeFlags, moduleBundle]);
    const proc = startProcess(name, run.command, run.args, logDir, env(watch, port));
    writeFileSync(join(logDir, `${name}.pid`), String(proc.child.pid));
    // Like a Deployment's pod: a crashed or killed process is started again.
    proc.child.once("exit", () => {
      if (stopping) return;
      setTimeout(() => {
        if (stopping) return;
        start(watch)
          .then(p => (watch ? (running.watcher = p) : (running.admission = p)))
          .catch(() => undefined);
      }, 500);
    });
    await waitFor(`${name} /healthz`, () => healthy(port, ca), 60_000, proc);
    return proc;
  };

  const running: RunningModule = {
    username: identity.username,
    admission: await start(false),
    watcher: await start(true),
    ports: { admission: admissionPort, watcher: watcherPort },
    async stop() {
      stopping = true;
      await Promise.all([running.watcher.stop(), running.admission.stop()]);
      limits.remove();
    },
  };
  return running;
}

/**
 * PORCH_PEPR_MODULE_MEMORY_LIMIT_MB (bench/ and faults/ set 512, the generated Deployment's
 * limit): each module process runs in a memory cgroup of that size, as in its pod. Where this
 * machine has no writable memory cgroup, only the heap is imitated, with --max-old-space-size at
 * half the limit, and a warning says the built-in workers' heap limits are not in force then.
 */
function podMemoryLimits(): {
  wrap(name: string, command: string, args: string[]): { command: string; args: string[] };
  remove(): void;
} {
  const mb = Number(process.env.PORCH_PEPR_MODULE_MEMORY_LIMIT_MB ?? 0);
  const groups = new Map<string, MemoryCgroup>();
  return {
    wrap(name, command, args) {
      if (!(mb > 0)) return { command, args };
      const existing = groups.get(name);
      const group = existing ?? memoryCgroup(`porch-pepr-${process.pid}-${name}`, mb * 1024 * 1024);
      if ("unavailable" in group) {
        process.stderr.write(
          `${name}: ${group.unavailable}; imitating only the pod's heap (--max-old-space-size=${mb / 2}), which overrides the built-in function workers' heap limits\n`,
        );
        return { command, args: [`--max-old-space-size=${mb / 2}`, ...args] };
      }
      groups.set(name, group);
      return group.wrap(command, args);
    },
    remove: () => groups.forEach(group => group.remove()),
  };
}

/**
 * A module process's environment: this process's, with `settings`. As in the Pods, only
 * PEPR_WATCH_MODE says which process runs the controllers: jest sets PEPR_MODE=dev for its own
 * processes (test/setup-env.cjs), and a module process started from a test inherited it, so the
 * admission process ran the controllers too, racing the watcher on the git caches (the fault
 * campaign's short run, inside jest).
 */
export function moduleProcessEnv(
  base: NodeJS.ProcessEnv,
  settings: Record<string, string>,
): NodeJS.ProcessEnv {
  return { ...base, PEPR_MODE: "", ...settings };
}
