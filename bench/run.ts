// `npm run bench [-- --sizes 10,100,1000] [--scenarios fanout,upgrade,events,admission,floor,fleet,installed]
//   [--out bench/results] [--add-to <results.json>] [--max-wait-s S] [--cpu-prof] [--heap-snapshot]`,
//   or `-- --from <results.json>` to rewrite the table and chart of an earlier run.
// For each N: a fresh embedded default (control plane, the built module as two host processes,
// git servers), a fleet of deployment repositories, then the scenarios and the floors; the
// fleet scenario gets a fresh embedded default of its own, so both fan-outs start alike. The
// installed scenario (on request, root) runs the same fan-out and upgrade on the module installed
// as Pods on a real local node (`npx pepr deploy`: isomorphic-git, the generated limits).
// --add-to: this run's sizes are added to (or replace the same N in) an earlier results.json,
// so an N = 10,000 run lands beside the N = 1000 one its growth is computed against.
// Results go to <out>/results.{json,md} and <out>/time-vs-n.png after every N; the module's
// logs (and CPU profiles with --cpu-prof, the watcher's heap after fan-out and after upgrade
// with --heap-snapshot, summarised in the log) are kept in .local/bench/n<N>/.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { tuneFluentClient } from "../capabilities/shared/cluster/kube-client-tuning";
import { startPodsEnvironment } from "../hack/deploy/environment";
import { startEnvironment, type Environment } from "../hack/environment";
import { repoRoot } from "../hack/cluster/paths";
import { apiFloor, floorInputs, gitFloor, realFloor, withControllersFrozen } from "./floor";
import { heapFlags, summarizeHeap, takeHeapSnapshot } from "./heap";
import { Api } from "./kube";
import { findPid, machine, ProcessMeter, readPid } from "./metrics";
import { PodMeter, watcherMetricsPath } from "./pods";
import { writeResults, type BenchResults, type Phases, type SizeResult } from "./report";
import { admissionLatency } from "./scenarios/admission";
import { embeddedWatcherMetrics, pidFile, settled, type BenchContext } from "./scenarios/context";
import { eventCosts } from "./scenarios/events";
import { fanOut, limits } from "./scenarios/fanout";
import { createFleet, type Fleet } from "./scenarios/fleet";
import { fleetFanOut, injectableUpstream } from "./scenarios/fleet-fanout";
import { publishDrafts, publishUpstreamV2, syncDeployments, upgrade } from "./scenarios/upgrade";

/** Run by default, on the embedded default. */
const SCENARIOS = ["fanout", "upgrade", "events", "admission", "floor", "fleet"];
/** Run only when named: the installed scenario needs root and builds a node (minutes). */
const ON_REQUEST = ["installed"];
/** The scenarios of the first environment of each size (the fleet has its own). */
const PLAIN = ["fanout", "upgrade", "events", "admission", "floor"];

/** The generated Deployment's memory limit (see where it is used). */
const POD_MEMORY_MB = Number(process.env.PORCH_PEPR_BENCH_MEMORY_MB ?? 512);

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** The processes measured: the control plane's, the git server's, this one's and `module`'s. */
function pidsOf(
  env: Pick<Environment, "stateDir" | "controlPlane">,
  module: () => Record<string, number | undefined>,
): () => Record<string, number | undefined> {
  const byName = (name: string) => env.controlPlane.processes.find(p => p.name === name)?.child.pid;
  const git = findPid(["--root", join(env.stateDir, "git")]);
  return () => ({
    ...module(),
    apiserver: byName("kube-apiserver"),
    etcd: byName("etcd"),
    git,
    bench: process.pid,
  });
}

const heapDir = (n: number) => join(repoRoot, ".local", "bench", `n${n}`, "heap");

/** With --heap-snapshot: the watcher's heap now, summarised in the log. */
async function heapSnapshot(ctx: BenchContext, n: number, after: string): Promise<void> {
  if (!process.argv.includes("--heap-snapshot")) return;
  const file = await takeHeapSnapshot(ctx, heapDir(n));
  const { total, rows } = summarizeHeap(file);
  log(`  heap after ${after}: ${total} MB live (${file})`);
  for (const [what, mb, count] of rows) log(`    ${String(mb).padStart(7)} MB ${count} × ${what}`);
}

/**
 * Fan-out, then with `withUpgrade` the publish, the sync and the upgrade, each into `into`: the
 * one sequence the embedded default and the installed scenario run. `after` runs after the
 * fan-out and after the upgrade (heap snapshots). A failed upgrade throws; a fan-out that fell
 * short is left in `into.fanOut.error` for the caller.
 */
async function fanOutThenUpgrade(
  ctx: BenchContext,
  fleet: Fleet,
  into: Phases,
  withUpgrade: boolean,
  after: (phase: string) => Promise<void> = async () => undefined,
): Promise<void> {
  const { n } = fleet;
  log(`N = ${n}: fan-out`);
  into.fanOut = await fanOut(ctx, fleet);
  log(`  ${JSON.stringify(into.fanOut.timeline)}`);
  await after("fan-out");
  if (into.fanOut.error || !withUpgrade) return;
  log(`N = ${n}: publishing the ${n} drafts`);
  into.publish = await publishDrafts(ctx, fleet);
  log(`  ${JSON.stringify(into.publish.timeline)}`);
  log(`N = ${n}: syncing the deployment repositories`);
  into.sync = await syncDeployments(ctx, fleet);
  log(`  ${JSON.stringify(into.sync.timeline)}`);
  await publishUpstreamV2(ctx, fleet);
  log(`N = ${n}: upgrade to v2`);
  into.upgrade = await upgrade(ctx, fleet);
  log(`  ${JSON.stringify(into.upgrade.timeline)}`);
  await after("upgrade");
  if (into.upgrade.error) throw new Error(into.upgrade.error);
}

async function runSize(ctx: BenchContext, n: number, wanted: Set<string>, result: SizeResult) {
  log(`N = ${n}: creating the fleet`);
  const fleet = await createFleet(ctx, n);
  try {
    await settled(ctx);
    if (["fanout", "upgrade", "floor"].some(s => wanted.has(s)))
      await fanOutThenUpgrade(ctx, fleet, result, wanted.has("upgrade"), phase =>
        heapSnapshot(ctx, n, phase),
      );
    // A cut-short fan-out still gets its floors (the controllers are frozen for them).
    const complete = !result.fanOut?.error;
    if (complete && wanted.has("events")) {
      log(`N = ${n}: event cost`);
      result.events = await eventCosts(ctx, fleet);
    }
    if (complete && wanted.has("admission")) {
      log(`N = ${n}: admission latency`);
      result.admission = await admissionLatency(ctx, fleet);
    }
    if (wanted.has("floor")) {
      const { objects, drafts, synthesized } = floorInputs(fleet);
      log(`N = ${n}: floors (${objects.variants.length} of each kind, controllers frozen)`);
      result.floor = await withControllersFrozen(ctx, async pid => ({
        api: await apiFloor(ctx, objects, pid),
        git: await gitFloor(ctx, drafts),
        real: await realFloor(ctx, objects, drafts, pid),
        synthesized,
      }));
      log(`  ${JSON.stringify(result.floor)}`);
    }
    if (result.fanOut?.error) throw new Error(result.fanOut.error);
  } finally {
    fleet.stop();
  }
}

/**
 * A fresh embedded default for `fn`, its module under the pod's memory limit; logs (and
 * profiles) kept in .local/bench/n<N><suffix>/.
 */
async function inEnvironment(
  n: number,
  suffix: string,
  fn: (ctx: BenchContext) => Promise<void>,
): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), `porch-pepr-bench-${n}-`));
  const keep = join(repoRoot, ".local", "bench", `n${n}${suffix}`);
  rmSync(keep, { recursive: true, force: true });
  mkdirSync(keep, { recursive: true });
  process.env.PORCH_PEPR_GIT_CACHE = join(workDir, "operator-cache");
  // The module runs under its pod's memory limit, in a cgroup (hack/module/memory-cgroup.ts):
  // Node sizes its heap from the limit as in the pod (about 256 MB for 512Mi), not from this
  // machine's memory, so peak RSS says whether the watcher fits its pod and the time includes
  // the garbage collection that costs.
  process.env.PORCH_PEPR_MODULE_MEMORY_LIMIT_MB = String(POD_MEMORY_MB);
  const flags: string[] = [];
  // More V8 flags for the module's processes, to measure what one costs or saves.
  flags.push(...(process.env.PORCH_PEPR_BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean));
  if (process.argv.includes("--cpu-prof"))
    flags.push("--cpu-prof", `--cpu-prof-dir=${join(keep, "profiles")}`);
  // A snapshot costs the watcher memory it may keep: later RSS figures of such a run are high.
  if (process.argv.includes("--heap-snapshot")) {
    mkdirSync(heapDir(n), { recursive: true });
    flags.push(...heapFlags(heapDir(n)));
  }
  process.env.PORCH_PEPR_MODULE_NODE_FLAGS = flags.join(" ");
  const env: Environment = await startEnvironment({ purpose: "bench" });
  process.env.KUBECONFIG = env.kubeconfig; // kubernetes-fluent-client (the API floor) reads it
  const ca = readFileSync(env.controlPlane.certs.caCert);
  const pidOf = (name: "watcher" | "admission") => readPid(pidFile({ env }, name));
  const module = () => ({ watcher: pidOf("watcher"), admission: pidOf("admission") });
  try {
    await fn({
      env,
      watcherMetrics: () => embeddedWatcherMetrics(env, ca),
      api: new Api(env.controlPlane.server, env.controlPlane.certs),
      ca,
      workDir,
      meter: new ProcessMeter(pidsOf(env, module)),
    });
  } finally {
    cpSync(join(env.stateDir, "logs"), join(keep, "logs"), { recursive: true });
    await env.stop().catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** The fleet scenario at N, in its own environment: its upstream has an injection point. */
async function runFleet(ctx: BenchContext, n: number, result: SizeResult): Promise<void> {
  log(`N = ${n}: creating the fleet for the fleet scenario`);
  const fleet = await createFleet(ctx, n, "bench", injectableUpstream(1));
  try {
    await settled(ctx);
    log(`N = ${n}: fleet fan-out (package context, prepended mutator, injection)`);
    result.fleet = await fleetFanOut(ctx, fleet);
    log(`  ${JSON.stringify(result.fleet.timeline)}`);
  } finally {
    fleet.stop();
  }
}

/**
 * The module installed as Pods on a fresh real local node (hack/deploy/environment.ts) for
 * `fn`; the run's logs and the watcher's are kept in .local/bench/n<N>-installed/. Everything it
 * started is stopped when `fn` ends, fails, or the bench is interrupted (SIGINT, SIGTERM): the
 * Pods' containers and shims outlive this process otherwise.
 */
async function inPodsEnvironment(n: number, fn: (ctx: BenchContext) => Promise<void>) {
  const workDir = mkdtempSync(join(tmpdir(), `porch-pepr-bench-${n}-`));
  const stateDir = mkdtempSync(join(tmpdir(), `porch-pepr-bench-pods-${n}-`));
  const keep = join(repoRoot, ".local", "bench", `n${n}-installed`);
  rmSync(keep, { recursive: true, force: true });
  mkdirSync(keep, { recursive: true });
  // The bench writes the fleet's repositories to the git server on the node's bridge address;
  // the embedded default of the next size gets the setting it had.
  const allowHttp = process.env.PORCH_PEPR_GIT_ALLOW_HTTP;
  process.env.PORCH_PEPR_GIT_ALLOW_HTTP = "any";
  let stopEnv: () => Promise<void> = async () => undefined;
  let cleaning: Promise<void> | undefined;
  // Once, whether the run ended, failed or was interrupted (or both at once).
  const cleanUp = () =>
    (cleaning ??= (async () => {
      if (existsSync(join(stateDir, "logs")))
        cpSync(join(stateDir, "logs"), join(keep, "logs"), { recursive: true });
      await stopEnv().catch(error => log(`stopping the node: ${errorText(error)}`));
      rmSync(stateDir, { recursive: true, force: true });
      rmSync(workDir, { recursive: true, force: true });
      if (allowHttp === undefined) delete process.env.PORCH_PEPR_GIT_ALLOW_HTTP;
      else process.env.PORCH_PEPR_GIT_ALLOW_HTTP = allowHttp;
    })());
  const interrupted = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the Pods, the node and the control plane`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    const env = await startPodsEnvironment(
      stateDir,
      what => log(`  ${what}`),
      stop => (stopEnv = stop),
    ).catch((error: unknown) => {
      stopEnv = async () => undefined; // a failed start has stopped what it started
      throw error;
    });
    const { controlPlane } = env.cluster;
    const api = new Api(controlPlane.server, controlPlane.certs);
    const pod = new PodMeter(api);
    await pod.refresh();
    const metricsPath = await watcherMetricsPath(api);
    const ctx: BenchContext = {
      env: { stateDir, git: env.git },
      watcherMetrics: async () => {
        const res = await api.send("GET", metricsPath);
        if (res.status !== 200) throw new Error(`the watcher's /metrics: ${res.status}`);
        return res.body;
      },
      api,
      ca: readFileSync(controlPlane.certs.caCert),
      workDir,
      meter: new ProcessMeter(pidsOf({ stateDir, controlPlane }, () => ({ watcher: pod.pid() }))),
      pod,
    };
    try {
      await fn(ctx);
    } finally {
      await pod
        .logs()
        .then(text => writeFileSync(join(keep, "watcher-pod.log"), text))
        .catch(error => log(`the watcher's log: ${errorText(error)}`));
    }
  } finally {
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
    await cleanUp();
  }
}

/** Fan-out and upgrade on the module installed as Pods. */
async function runInstalled(ctx: BenchContext, n: number, result: SizeResult): Promise<void> {
  log(`N = ${n}: creating the fleet for the installed scenario`);
  const fleet = await createFleet(ctx, n);
  result.installed = {};
  try {
    await settled(ctx);
    await fanOutThenUpgrade(ctx, fleet, result.installed, true);
    if (result.installed.fanOut?.error) throw new Error(result.installed.fanOut.error);
  } finally {
    fleet.stop();
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The earlier results --add-to names, without the sizes this run measures again. */
function earlierResults(sizes: number[]): SizeResult[] {
  const file = option("add-to", "");
  if (!file) return [];
  const earlier = JSON.parse(readFileSync(file, "utf8")) as BenchResults;
  return earlier.sizes.filter(r => !sizes.includes(r.n));
}

async function main(): Promise<void> {
  // --from <results.json>: rewrite the table and chart of an earlier run without running.
  const from = option("from", "");
  if (from)
    return writeResults(
      dirname(resolve(from)),
      JSON.parse(readFileSync(from, "utf8")) as BenchResults,
    );
  const sizes = option("sizes", "10,100,1000").split(",").map(Number);
  const wanted = new Set(option("scenarios", SCENARIOS.join(",")).split(","));
  const known = [...SCENARIOS, ...ON_REQUEST];
  const unknown = [...wanted].filter(s => !known.includes(s));
  if (unknown.length > 0 || sizes.some(n => !(n >= 10)))
    throw new Error(`usage: --sizes 10,100,1000 (each ≥ 10) --scenarios ${known.join(",")}`);
  const out = resolve(option("out", join(repoRoot, "bench", "results")));
  limits.maxWaitMs = Number(option("max-wait-s", "Infinity")) * 1000;
  // The API floor goes through kubernetes-fluent-client as the operator runs it.
  if (!process.env.PORCH_PEPR_KUBE_CLIENT_UNTUNED) tuneFluentClient();
  const results: BenchResults = {
    machine: machine(),
    date: new Date().toISOString(),
    scenarios: [...wanted],
    sizes: earlierResults(sizes),
  };
  for (const n of sizes) {
    const result: SizeResult = { n };
    results.sizes.push(result);
    results.sizes.sort((a, b) => a.n - b.n);
    try {
      if (PLAIN.some(s => wanted.has(s)))
        await inEnvironment(n, "", ctx => runSize(ctx, n, wanted, result));
    } catch (error) {
      result.error = errorText(error);
      log(`N = ${n} failed: ${result.error}`);
    }
    writeResults(out, results);
    if (wanted.has("fleet")) {
      await inEnvironment(n, "-fleet", ctx => runFleet(ctx, n, result)).catch(error => {
        result.scenarioErrors = { ...result.scenarioErrors, fleet: errorText(error) };
        log(`N = ${n} fleet failed: ${errorText(error)}`);
      });
      writeResults(out, results);
    }
    if (wanted.has("installed")) {
      await inPodsEnvironment(n, ctx => runInstalled(ctx, n, result)).catch(error => {
        result.scenarioErrors = { ...result.scenarioErrors, installed: errorText(error) };
        log(`N = ${n} installed failed: ${errorText(error)}`);
      });
      writeResults(out, results);
    }
  }
  log(`results in ${out}`);
}

main().then(
  () => process.exit(0),
  error => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
