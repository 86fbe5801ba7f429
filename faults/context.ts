// What every fault scenario gets: a fresh embedded default of its own (control plane, the built
// module as two host processes restarted when they exit, git servers), the benchmark's API
// client and process meter, and the faults it may inject. Invariants are checked from the API
// and from git, never from the operator's logs.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../hack/cluster/paths";
import { startEnvironment, type Environment } from "../hack/environment";
import { Api } from "../bench/kube";
import { findPid, ProcessMeter, readPid } from "../bench/metrics";
import { embeddedWatcherMetrics, pidFile, type BenchContext } from "../bench/scenarios/context";
import { INSPECT_ON_SIGNAL } from "./live-heap";

export interface FaultContext extends BenchContext<Environment> {
  log(message: string): void;
  /** The pid of the module's controller (watcher) or webhook (admission) process now. */
  pidOf(name: "watcher" | "admission"): number | undefined;
}

/** The generated Deployment's memory limit, imitated as in bench/ (hack/module/memory-cgroup.ts). */
const POD_MEMORY_MB = 512;

/** Where a scenario's module and control-plane logs are kept after its environment stops. */
export const keptLogs = (scenario: string) => join(repoRoot, ".local", "faults", scenario);

/**
 * Runs `scenario` against an environment of its own and stops it afterwards; its logs are kept
 * in .local/faults/<name>/ for a reader of a failed invariant.
 */
export async function withFaultEnvironment<T>(
  name: string,
  scenario: (ctx: FaultContext) => Promise<T>,
  /** Settings the module's processes get (they inherit this process's environment). */
  moduleEnv: Record<string, string> = {},
): Promise<T> {
  const log = (message: string) => process.stderr.write(`[faults ${name}] ${message}\n`);
  const workDir = mkdtempSync(join(tmpdir(), `porch-pepr-faults-${name}-`));
  process.env.PORCH_PEPR_GIT_CACHE = join(workDir, "operator-cache");
  process.env.PORCH_PEPR_MODULE_MEMORY_LIMIT_MB = String(POD_MEMORY_MB);
  process.env.PORCH_PEPR_MODULE_NODE_FLAGS = INSPECT_ON_SIGNAL;
  log("starting the embedded default");
  // Set for the whole scenario: a module process restarted later reads them again.
  const before = Object.fromEntries(Object.keys(moduleEnv).map(k => [k, process.env[k]]));
  const restore = () => {
    for (const [k, v] of Object.entries(before))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  };
  Object.assign(process.env, moduleEnv);
  const env = await startEnvironment({ purpose: "faults" }).catch((error: unknown) => {
    restore();
    throw error;
  });
  const ca = readFileSync(env.controlPlane.certs.caCert);
  const pidOf = (which: "watcher" | "admission") => readPid(pidFile({ env }, which));
  const pids = () => ({
    watcher: pidOf("watcher"),
    admission: pidOf("admission"),
    apiserver: env.controlPlane.processes.find(p => p.name === "kube-apiserver")?.child.pid,
    git: findPid(["--root", join(env.stateDir, "git")]),
  });
  const ctx: FaultContext = {
    env,
    watcherMetrics: () => embeddedWatcherMetrics(env, ca),
    api: new Api(env.controlPlane.server, env.controlPlane.certs),
    ca,
    meter: new ProcessMeter(pids),
    workDir,
    log,
    pidOf,
  };
  try {
    return await scenario(ctx);
  } finally {
    const keep = keptLogs(name);
    rmSync(keep, { recursive: true, force: true });
    mkdirSync(keep, { recursive: true });
    cpSync(join(env.stateDir, "logs"), join(keep, "logs"), { recursive: true });
    ctx.api.agent.destroy();
    await env.stop().catch(() => undefined);
    restore();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>(r => setTimeout(r, ms));

/** A uniformly random whole number of milliseconds in [minMs, maxMs]. */
export const randomMs = (minMs: number, maxMs: number) =>
  Math.round(minMs + Math.random() * (maxMs - minMs));
