import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../hack/cluster/paths";
import { tuneFluentClient } from "../../capabilities/shared/cluster/kube-client-tuning";
import { fluentCluster } from "../../capabilities/shared/cluster/fluent-client";
import { createPodRuntime, type PodRuntime } from "../../capabilities/shared/function-pods/runtime";
import type { Logger } from "../../capabilities/context";
import { DEFAULT_POD_RUNTIME_LIMITS, podTemplate, TEMPLATE_HASH_LABEL } from "../../lib/fn/pod";
import type { PodFunction, PodRuntimeSettings } from "../../lib/fn/pod-function";
import { renderPackage } from "../../lib/fn/render";
import {
  FunctionRuntimeError,
  type FunctionRunner,
  type FunctionRuntime,
} from "../../lib/fn/runtime";
import { kptfile } from "../support/git";
import { eventually } from "../support/wait";
import { deployEnvironment } from "./environment";

// The Pod runtime against the real node: the labeller image (hack/functions/labeller) run by
// the runner the operator will use, called from this process (the host reaches Pod IPs over
// the node's bridge) as the module's ServiceAccount, with only the RBAC that
// manifests/function-pods.yaml grants, applied as a user applies it.

const env = deployEnvironment();
const NAMESPACE = "porch-fn-system";
const MODULE_ACCOUNT = "system:serviceaccount:pepr-system:pepr-porch-pepr";
const log = (what: string) => process.stderr.write(`[function-pods] ${what}\n`);

/** kubectl as the administrator, whatever KUBECONFIG this file points the runner at. */
function admin(args: string[]): string {
  const result = spawnSync("kubectl", args, {
    encoding: "utf8",
    env: { ...process.env, KUBECONFIG: env.kubeconfig },
  });
  if (result.status !== 0) throw new Error(`kubectl ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

const settings = (): PodRuntimeSettings => ({
  namespace: NAMESPACE,
  serviceAccountName: "porch-fn-runner",
  wrapperImage: env.functionImages.wrapper,
});

/** The labeller as a catalog entry; `cpu` tells the tests' templates (and so Pods) apart. */
const labeller = (cpu: string, more: Partial<PodFunction> = {}): PodFunction => ({
  image: env.functionImages.labeller,
  entrypoint: ["/usr/local/bin/function"],
  resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { cpu, memory: "128Mi" } },
  timeoutMs: 30_000,
  idleMs: 10 * 60_000,
  ...more,
});

const templateKey = (fn: PodFunction) =>
  podTemplate(fn, settings(), DEFAULT_POD_RUNTIME_LIMITS).key;

const podsOf = (fn: PodFunction): string[] =>
  admin(["get", "pods", "-n", NAMESPACE, "-l", `${TEMPLATE_HASH_LABEL}=${templateKey(fn)}`])
    .split("\n")
    .slice(1)
    .filter(Boolean)
    .map(line => line.split(/\s+/)[0]);

/** A render's function runtime that runs the labeller image with `runner`, as the wiring will. */
const runtimeWith = (runner: FunctionRunner): FunctionRuntime => ({
  describe: () => "pod (the labeller)",
  resolve: fn => {
    if (fn.image !== env.functionImages.labeller)
      throw new FunctionRuntimeError(`not the labeller: ${fn.image}`);
    return runner;
  },
});

const packageFiles = (config: Record<string, string>) => ({
  Kptfile: kptfile(
    "app",
    [
      "pipeline:",
      "  mutators:",
      `    - image: ${env.functionImages.labeller}`,
      "      configMap:",
      ...Object.entries(config).map(([k, v]) => `        ${k}: ${JSON.stringify(v)}`),
      "",
    ].join("\n"),
  ),
  "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings # kept\ndata:\n  a: b\n",
  "svc.yaml":
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
});

const quiet: Logger = {
  debug() {},
  info: message => log(message),
  warn: message => log(`warn: ${message}`),
  error: message => log(`error: ${message}`),
};

let runtime: PodRuntime;
const savedKubeconfig = process.env.KUBECONFIG;
const timings: string[] = [];

beforeAll(() => {
  // As README, "Functions as Pods", says an administrator does.
  admin(["apply", "-f", join(repoRoot, "manifests", "function-pods.yaml")]);
  // The runner acts as the operator: a token of the module's ServiceAccount, nothing more.
  const token = admin([
    "create",
    "token",
    "pepr-porch-pepr",
    "-n",
    "pepr-system",
    "--duration=1h",
  ]).trim();
  const view = JSON.parse(admin(["config", "view", "--raw", "--minify", "-o", "json"]));
  const moduleKubeconfig = join(env.stateDir, "function-pods-module.kubeconfig");
  writeFileSync(
    moduleKubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "local", cluster: view.clusters[0].cluster }],
      users: [{ name: "module", user: { token } }],
      contexts: [{ name: "local", context: { cluster: "local", user: "module" } }],
      "current-context": "local",
    }),
  );
  process.env.KUBECONFIG = moduleKubeconfig;
  tuneFluentClient();
  runtime = createPodRuntime(fluentCluster(quiet), quiet);
});

afterAll(() => {
  runtime?.close();
  process.env.KUBECONFIG = savedKubeconfig;
  log(timings.join("\n[function-pods] "));
});

it("may make Pods in the function namespace only", () => {
  const canI = (namespace: string) =>
    spawnSync(
      "kubectl",
      ["auth", "can-i", "create", "pods", "-n", namespace, `--as=${MODULE_ACCOUNT}`],
      { encoding: "utf8", env: { ...process.env, KUBECONFIG: env.kubeconfig } },
    ).stdout.trim();
  expect(canI(NAMESPACE)).toBe("yes");
  expect(canI("default")).toBe("no");
  expect(canI("pepr-system")).toBe("no");
});

it("renders a package through the labeller image in a function Pod", async () => {
  const started = Date.now();
  const runner = runtime.runner(labeller("500m"), settings());
  const out = await renderPackage(packageFiles({ key: "team", value: "blue" }), {
    runtime: runtimeWith(runner),
  });
  timings.push(`first render (a new Pod): ${Date.now() - started} ms`);
  expect(out.error).toBeUndefined();
  expect(out.steps.map(s => s.runtime)).toEqual(["pod"]);
  expect(out.files["cm.yaml"]).toContain("team: blue");
  expect(out.files["cm.yaml"]).toContain("name: settings # kept");
  expect(out.files["svc.yaml"]).toContain("team: blue");
  expect(out.results.items[0].results?.[0].message).toBe("labelled 2 resources team=blue");
});

it("runs the function as 65532 with PATH and HOME only, unable to read the wrapper's token or write its root", async () => {
  const runner = runtime.runner(labeller("500m"), settings());
  const out = await renderPackage(packageFiles({ mode: "inspect" }), {
    runtime: runtimeWith(runner),
  });
  expect(out.error).toBeUndefined();
  expect(out.results.items[0].results?.map(r => r.message)).toEqual([
    "uid=65532",
    "env=HOME,PATH",
    "wrapper-environ-readable=false",
    "root-writable=false",
  ]);
  const [name] = podsOf(labeller("500m"));
  const pod = JSON.parse(admin(["get", "pod", name, "-n", NAMESPACE, "-o", "json"]));
  expect(pod.spec.automountServiceAccountToken).toBe(false);
  expect(pod.spec.serviceAccountName).toBe("porch-fn-runner");
  expect(pod.spec.containers[0].securityContext.readOnlyRootFilesystem).toBe(true);
});

describe("a failing function ends as a named failure", () => {
  it.each([
    [
      "crash",
      labeller("500m"),
      /\(pod runtime\): FunctionFailed: exited with code 1; stderr: labeller: crashing as asked/,
    ],
    [
      "garbage",
      labeller("500m"),
      /\(pod runtime\): InvalidOutput: function output is not valid YAML/,
    ],
    [
      "hang",
      labeller("500m", { timeoutMs: 3000 }),
      /\(pod runtime\): Timeout: the function ran longer than 3s and was killed/,
    ],
  ])("%s", async (mode, fn, reason) => {
    const out = await renderPackage(packageFiles({ mode }), {
      runtime: runtimeWith(runtime.runner(fn, settings())),
    });
    expect(out.ok).toBe(false);
    expect(out.error?.message).toContain(`function image "${env.functionImages.labeller}"`);
    expect(out.error?.message).toMatch(reason);
  });
});

/**
 * Every Pod of the template the API adds from now on, by name, and whether each is Ready: a
 * watch from the resourceVersion of a list taken now, so no creation is missed however late
 * the watch connects.
 */
function watchPods(fn: PodFunction): { added: Map<string, boolean>; stop(): void } {
  const selector = `${TEMPLATE_HASH_LABEL}=${templateKey(fn)}`;
  const list = JSON.parse(admin(["get", "pods", "-n", NAMESPACE, "-l", selector, "-o", "json"]));
  const path =
    `/api/v1/namespaces/${NAMESPACE}/pods?watch=1&labelSelector=${encodeURIComponent(selector)}` +
    `&resourceVersion=${list.metadata.resourceVersion}`;
  const watch = spawn("kubectl", ["get", "--raw", path], {
    env: { ...process.env, KUBECONFIG: env.kubeconfig },
  });
  const added = new Map<string, boolean>();
  let pending = "";
  watch.stdout.setEncoding("utf8").on("data", (text: string) => {
    const lines = (pending + text).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines.filter(Boolean)) {
      const event = JSON.parse(line);
      const name = event.object?.metadata?.name;
      if (!name || event.type === "DELETED") continue;
      const conditions: { type: string; status: string }[] = event.object.status?.conditions ?? [];
      added.set(
        name,
        conditions.some(c => c.type === "Ready" && c.status === "True"),
      );
    }
  });
  return { added, stop: () => watch.kill() };
}

it("serves 20 runs, 10 of them at once, from exactly one Pod", async () => {
  const fn = labeller("400m");
  const watch = watchPods(fn);
  try {
    const render = () =>
      renderPackage(packageFiles({ key: "run", value: "twenty" }), {
        runtime: runtimeWith(runtime.runner(fn, settings())),
      });
    const coldStart = Date.now();
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => render()));
    timings.push(`10 renders at once on a new Pod: ${Date.now() - coldStart} ms`);
    const warm: number[] = [];
    const sequential = [];
    for (let i = 0; i < 10; i++) {
      const t = Date.now();
      sequential.push(await render());
      warm.push(Date.now() - t);
    }
    warm.sort((a, b) => a - b);
    timings.push(`warm render, median of 10: ${warm[5]} ms (min ${warm[0]}, max ${warm[9]})`);
    for (const out of [...concurrent, ...sequential]) {
      expect(out.error).toBeUndefined();
      expect(out.files["cm.yaml"]).toContain("run: twenty");
    }
    const pods = podsOf(fn);
    expect(pods).toHaveLength(1);
    // The watch is ordered: once it shows the Pod Ready, it has shown every Pod made before.
    await eventually("the watch showing the Pod Ready", () =>
      watch.added.get(pods[0]) ? true : undefined,
    );
    expect([...watch.added.keys()]).toEqual(pods);
  } finally {
    watch.stop();
  }
});

it("adopts the Pods an earlier process left: a new runtime makes none", async () => {
  const fn = labeller("400m");
  const [before] = podsOf(fn);
  const later = createPodRuntime(fluentCluster(quiet), quiet);
  try {
    const out = await renderPackage(packageFiles({ key: "again", value: "adopted" }), {
      runtime: runtimeWith(later.runner(fn, settings())),
    });
    expect(out.error).toBeUndefined();
    expect(out.files["cm.yaml"]).toContain("again: adopted");
    expect(podsOf(fn)).toEqual([before]);
  } finally {
    later.close();
  }
});

it("deletes a Pod idle for idleMs", async () => {
  const fn = labeller("300m", { idleMs: 2000 });
  const out = await renderPackage(packageFiles({ key: "idle", value: "soon" }), {
    runtime: runtimeWith(runtime.runner(fn, settings())),
  });
  expect(out.error).toBeUndefined();
  expect(podsOf(fn)).toHaveLength(1);
  await eventually(
    "the idle Pod deleted",
    () => (podsOf(fn).length === 0 ? true : undefined),
    90_000,
    1000,
  );
});
