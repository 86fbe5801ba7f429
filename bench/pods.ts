// The watcher as a Pod (`--scenarios installed`): the module installed by `npx pepr deploy` on
// the real local node (hack/deploy/environment.ts). The bench finds the watcher's container
// through the API (Pod UID, container ID, restart count) and the node's memory cgroup (its
// process, peak and working set); /metrics is read through the API server's service proxy.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Api } from "./kube";
import { round } from "./metrics";

export const PEPR_NAMESPACE = "pepr-system";
const WATCHER = "pepr.dev/controller=watcher";
/** The most of a container's log kept with the run's logs. */
const LOG_LIMIT = `limitBytes=${64 * 1024 * 1024}`;

/** The memory hierarchy the node's kubelet (cgroupfs driver) puts Pods under. */
const MEMORY_CGROUP = "/sys/fs/cgroup/memory";
const QOS_CLASSES = ["burstable", "besteffort", ""];

interface Pod {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  status?: {
    containerStatuses?: {
      containerID?: string;
      restartCount: number;
      lastState?: { terminated?: { reason?: string; exitCode?: number } };
    }[];
  };
}

interface Service {
  metadata: { name: string };
}

/** The watcher Pod as last read from the API. */
interface WatcherPod {
  name: string;
  uid: string;
  containerId?: string;
  restarts: number;
  lastTermination?: string;
}

export interface PodUsage {
  /**
   * The watcher container cgroup's peak usage (cgroup v1 memory.max_usage_in_bytes, reset at
   * the start of the step), page cache included: what the Pod's 512Mi limit is charged with.
   */
  peakMemoryMb: number;
  /** Peak working set (usage − inactive file cache, as the kubelet reports it), 1 s samples. */
  peakWorkingSetMb: number;
  /** Container restarts during the step, plus 1 if the Pod itself was replaced. */
  restarts: number;
  /** Why the container last ended (OOMKilled, Error), when it restarted. */
  lastTermination?: string;
}

const list = async <T>(api: Api, path: string) =>
  (await api.json<{ items: T[] }>("GET", `${path}?labelSelector=${encodeURIComponent(WATCHER)}`))
    .items;

async function readWatcherPod(api: Api): Promise<WatcherPod> {
  const pods = await list<Pod>(api, `/api/v1/namespaces/${PEPR_NAMESPACE}/pods`);
  const pod = pods.find(p => !p.metadata.deletionTimestamp);
  if (!pod) throw new Error(`no watcher Pod in ${PEPR_NAMESPACE}`);
  const status = pod.status?.containerStatuses?.[0];
  const terminated = status?.lastState?.terminated;
  return {
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    containerId: status?.containerID?.replace(/^[a-z]+:\/\//, ""),
    restarts: status?.restartCount ?? 0,
    lastTermination: terminated && `${terminated.reason} (exit ${terminated.exitCode})`,
  };
}

/** The container's memory cgroup folder on this node, if it exists now. */
function cgroupOf(pod: WatcherPod): string | undefined {
  if (!pod.containerId) return undefined;
  return QOS_CLASSES.map(qos =>
    join(MEMORY_CGROUP, "kubepods", qos, `pod${pod.uid}`, pod.containerId!),
  ).find(existsSync);
}

const readNumber = (file: string): number | undefined => {
  try {
    return Number(readFileSync(file, "utf8").trim());
  } catch {
    return undefined;
  }
};

/** usage − total_inactive_file: the working set, as the kubelet computes it on cgroup v1. */
function workingSet(dir: string): number | undefined {
  const usage = readNumber(join(dir, "memory.usage_in_bytes"));
  if (usage === undefined) return undefined;
  try {
    const stat = readFileSync(join(dir, "memory.stat"), "utf8");
    const inactive = Number(/^total_inactive_file (\d+)$/m.exec(stat)?.[1] ?? 0);
    return Math.max(0, usage - inactive);
  } catch {
    return undefined;
  }
}

const parentOf = (pid: number): number | undefined => {
  try {
    return Number(/^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  } catch {
    return undefined;
  }
};

/**
 * Of a container's processes, the one running the module: Pepr's controller.js (the container's
 * first process) forks it, so it is the one whose parent is in the container too; the first
 * while there is no child.
 */
export function moduleProcessOf(
  pids: number[],
  parent: (pid: number) => number | undefined,
): number | undefined {
  const inside = new Set(pids);
  return pids.find(pid => inside.has(parent(pid) ?? 0)) ?? pids[0];
}

function moduleProcess(dir: string): number | undefined {
  let procs: string;
  try {
    procs = readFileSync(join(dir, "cgroup.procs"), "utf8");
  } catch {
    return undefined; // the container went meanwhile
  }
  return moduleProcessOf(procs.split("\n").filter(Boolean).map(Number), parentOf);
}

/** Restarts between two reads of the watcher Pod: a replaced Pod counts once, and its own. */
export function restartsBetween(
  before: Pick<WatcherPod, "uid" | "restarts">,
  now: Pick<WatcherPod, "uid" | "restarts">,
): number {
  return before.uid === now.uid ? now.restarts - before.restarts : now.restarts + 1;
}

const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

/**
 * The watcher Pod's process, memory and restarts. pid() is synchronous (the ProcessMeter samples
 * every 250 ms); it answers from what the last refresh read, which start(), stop() and a 1 s
 * timer during a step do, so a restarted container is followed within a second.
 */
export class PodMeter {
  #pod: WatcherPod | undefined;
  #dir: string | undefined;
  #pid: number | undefined;
  #startPod: WatcherPod | undefined;
  #peak = 0;
  #workingSet = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly api: Api) {}

  /** Reads the Pod from the API and finds its container's cgroup and the module's process. */
  async refresh(): Promise<void> {
    this.#pod = await readWatcherPod(this.api);
    this.#dir = cgroupOf(this.#pod);
    this.#pid = this.#dir ? moduleProcess(this.#dir) : undefined;
  }

  pid(): number | undefined {
    return this.#pid && existsSync(`/proc/${this.#pid}`) ? this.#pid : undefined;
  }

  #sample(): void {
    if (!this.#dir) return;
    this.#peak = Math.max(
      this.#peak,
      readNumber(join(this.#dir, "memory.max_usage_in_bytes")) ?? 0,
    );
    this.#workingSet = Math.max(this.#workingSet, workingSet(this.#dir) ?? 0);
  }

  async start(): Promise<void> {
    await this.refresh();
    this.#startPod = this.#pod;
    this.#peak = 0;
    this.#workingSet = 0;
    // Writing 0 resets the high-water mark to the current usage (cgroup v1).
    if (this.#dir) writeFileSync(join(this.#dir, "memory.max_usage_in_bytes"), "0");
    this.#sample();
    let reading = false;
    this.#timer = setInterval(() => {
      this.#sample();
      if (reading) return; // one read at a time, however slow the API is
      reading = true;
      // A failed read (the API busy) keeps the last answer; the next tick tries again.
      this.refresh()
        .catch(() => undefined)
        .finally(() => (reading = false));
    }, 1000);
  }

  async stop(): Promise<PodUsage> {
    clearInterval(this.#timer);
    this.#sample();
    await this.refresh();
    this.#sample();
    const now = this.#pod!;
    const restarts = restartsBetween(this.#startPod ?? now, now);
    return {
      peakMemoryMb: mb(this.#peak),
      peakWorkingSetMb: mb(this.#workingSet),
      restarts,
      ...(restarts > 0 && now.lastTermination && { lastTermination: now.lastTermination }),
    };
  }

  /**
   * The watcher's log (and its previous container's, after a restart), for .local/bench/: the
   * first 64 MiB of each.
   */
  async logs(): Promise<string> {
    await this.refresh();
    const path = `/api/v1/namespaces/${PEPR_NAMESPACE}/pods/${this.#pod!.name}/log`;
    const read = async (query: string) => (await this.api.send("GET", `${path}?${query}`)).body;
    const previous = this.#pod!.restarts > 0 ? await read(`previous=true&${LOG_LIMIT}`) : "";
    return `${previous}${await read(LOG_LIMIT)}`;
  }
}

/**
 * The watcher's /metrics through the API server's service proxy: the Service Pepr generates
 * for the watcher follows the Pod across restarts, and the proxy reaches the Pod network.
 */
export async function watcherMetricsPath(api: Api): Promise<string> {
  const services = await list<Service>(api, `/api/v1/namespaces/${PEPR_NAMESPACE}/services`);
  const name = services[0]?.metadata.name;
  if (!name) throw new Error(`no watcher Service in ${PEPR_NAMESPACE}`);
  return `/api/v1/namespaces/${PEPR_NAMESPACE}/services/https:${name}:443/proxy/metrics`;
}
