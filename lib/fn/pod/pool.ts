// The warm pool's decisions, as pure functions of what it knows: one Pod per function template
// (manifest.ts), the runs using it and waiting for it, when it was last used, and what the API
// lists. capabilities/shared/function-pods/pool.ts carries each step out with an exhaustive
// switch.
import type { PodRuntimeLimits } from "./limits";
import type { ObservedPod } from "./observe";

/** A Pod a function's runs go to. */
export interface ServingPod {
  name: string;
  token: string;
  /** The Pod's IP once it is Ready; undefined while it starts. */
  address?: string;
  /** Runs in flight on it. */
  running: number;
  /** When the pool saw it Ready (or adopted it). */
  readyAtMs?: number;
}

export type ReadyPod = ServingPod & { address: string };

/** One function template's state in the pool. */
export interface PoolEntry {
  key: string;
  pod?: ServingPod;
  /** Runs waiting for the Pod to start or for one of its runs to end, first come first served. */
  waiting: number;
  lastUsedMs: number;
  idleMs: number;
}

type Limits = Pick<PodRuntimeLimits, "maxRunsPerPod" | "maxWaitingPerPod">;

export type AcquireStep =
  /** Send the run to this Pod (count it as running). */
  | { kind: "run"; pod: ReadyPod }
  /** No Pod: make one and wait for it to be Ready. */
  | { kind: "create" }
  /** Queue: the Pod is starting, or busy, or others wait already. */
  | { kind: "wait"; for: "start" | "slot" }
  | { kind: "reject"; reason: "QueueFull"; message: string };

/** What a newly arrived run does. Runs start in arrival order: none overtakes a waiting one. */
export function planAcquire(entry: PoolEntry | undefined, limits: Limits): AcquireStep {
  const pod = entry?.pod;
  if (!entry || !pod) return { kind: "create" };
  // A starting Pod's waiting runs include those it will run at once when Ready.
  const starting = pod.address === undefined;
  const bound = limits.maxWaitingPerPod + (starting ? limits.maxRunsPerPod : 0);
  const reject = {
    kind: "reject" as const,
    reason: "QueueFull" as const,
    message: `${entry.waiting} runs already wait for Pod ${pod.name} (at most ${bound})`,
  };
  if (entry.waiting >= bound) return reject;
  if (starting) return { kind: "wait", for: "start" };
  if (pod.running < limits.maxRunsPerPod && entry.waiting === 0)
    return { kind: "run", pod: pod as ReadyPod };
  return { kind: "wait", for: "slot" };
}

export type RoomStep =
  /** Fewer Pods than the limit: make the new one. */
  | { kind: "room" }
  /** At the limit: delete the least recently used idle Pod first. */
  | { kind: "evict"; key: string; pod: ServingPod }
  | { kind: "full"; reason: "TooManyPods"; message: string };

/**
 * Whether a new Pod fits beside the pool's others (`maxPods`, starting ones included). Without
 * the bound a pipeline naming many images (or many allowed tags of one) starts a Pod for each and
 * keeps each until it is idle long enough, taking the nodes from every other tenant's functions.
 */
export function planRoom(entries: Iterable<PoolEntry>, maxPods: number): RoomStep {
  let count = 0;
  let idlest: PoolEntry | undefined;
  for (const entry of entries) {
    const pod = entry.pod;
    if (!pod) continue;
    count += 1;
    const idle = pod.address !== undefined && pod.running === 0 && entry.waiting === 0;
    if (idle && (!idlest || entry.lastUsedMs < idlest.lastUsedMs)) idlest = entry;
  }
  if (count < maxPods) return { kind: "room" };
  if (idlest?.pod) return { kind: "evict", key: idlest.key, pod: idlest.pod };
  return {
    kind: "full",
    reason: "TooManyPods",
    message: `${count} function Pods run already, none of them idle, and at most ${maxPods} may (PORCH_PEPR_FN_MAX_PODS)`,
  };
}

/** Check the Pod for idleness at `atMs`. */
type IdleCheck = { kind: "idle-check"; atMs: number };

export type ReleaseStep =
  /** Give the ended run's place to the first waiting run. */
  | { kind: "handoff"; pod: ReadyPod }
  /** Nothing waits: check for idleness then. */
  | IdleCheck
  /** The Pod was replaced meanwhile; its waiting runs were sent to the new one. */
  | { kind: "none" };

/** After a run on `podName` ended (counted out of its Pod's runs already). */
export function planRelease(
  entry: PoolEntry | undefined,
  podName: string,
  nowMs: number,
): ReleaseStep {
  const pod = entry?.pod;
  if (!entry || !pod || pod.name !== podName || pod.address === undefined) return { kind: "none" };
  if (entry.waiting > 0) return { kind: "handoff", pod: pod as ReadyPod };
  return { kind: "idle-check", atMs: nowMs + entry.idleMs };
}

export type IdleStep =
  | { kind: "delete"; pod: ServingPod }
  | IdleCheck
  /** No Ready Pod, or one in use: the end of its last run schedules the next check. */
  | { kind: "none" };

export function planIdle(entry: PoolEntry | undefined, nowMs: number): IdleStep {
  const pod = entry?.pod;
  if (!entry || !pod || pod.address === undefined || pod.running > 0 || entry.waiting > 0)
    return { kind: "none" };
  const atMs = entry.lastUsedMs + entry.idleMs;
  return nowMs >= atMs ? { kind: "delete", pod } : { kind: "idle-check", atMs };
}

export type LostStep =
  /** The Pod is gone or not answering: forget and delete it, and try again on a new one. */
  | { kind: "replace"; pod: ServingPod }
  /** Another run replaced it already: try again on that Pod (this run's one replacement). */
  | { kind: "retry" }
  /** Lost again after a replacement: fail, and forget that Pod too (`drop`) if still current. */
  | { kind: "fail"; reason: "PodUnreachable"; drop?: ServingPod };

/**
 * A run's Pod did not answer (connection refused or reset, or it refused our token). Each run
 * attempt replaces a Pod once: a second loss fails the run rather than loop.
 */
export function planLost(
  entry: PoolEntry | undefined,
  lostPod: string,
  replacedOnce: boolean,
): LostStep {
  const pod = entry?.pod?.name === lostPod ? entry.pod : undefined;
  if (replacedOnce) return { kind: "fail", reason: "PodUnreachable", ...(pod && { drop: pod }) };
  return pod ? { kind: "replace", pod } : { kind: "retry" };
}

export type SyncStep =
  | { kind: "adopt"; key: string; pod: ReadyPod; idleMs: number }
  | {
      kind: "delete";
      name: string;
      reason: "Failed" | "NotReady" | "Duplicate" | "Incomplete";
      detail?: string;
    }
  /** A Pod the pool sends runs to is gone or failed: the next run makes a new one. */
  | { kind: "forget"; key: string; name: string; reason: "Gone" | "Failed" };

export interface SyncView {
  entries: ReadonlyMap<string, PoolEntry>;
  /** Pods the pool is deleting, or deleted after the list was asked for. */
  deleting: ReadonlySet<string>;
  /** When the list was asked for: a Pod Ready since then may be missing from it. */
  listedAtMs: number;
}

/**
 * Level-triggered: compares the pool with the function Pods the API lists in its namespace (at
 * start-up: what an earlier operator process left). Each listed Pod is the pool's, adopted
 * (Ready, complete, the first of its template), or deleted; each Pod the pool knows but the
 * API no longer serves is forgotten. A Pod created or Ready after the list was asked for may be
 * missing from it, and one being deleted may still be in it: both are left alone.
 */
export function planSync(view: SyncView, observed: readonly ObservedPod[]): SyncStep[] {
  const { entries, deleting, listedAtMs } = view;
  const steps: SyncStep[] = [];
  const byName = new Map(observed.map(p => [p.name, p]));
  const served = new Set<string>();
  for (const entry of entries.values()) {
    const pod = entry.pod;
    if (!pod) continue;
    const seen = byName.get(pod.name);
    // Ready before the list was asked for, so made before it: missing means gone.
    const listable = pod.readyAtMs !== undefined && pod.readyAtMs < listedAtMs;
    if (seen?.terminating || (!seen && listable)) {
      steps.push({ kind: "forget", key: entry.key, name: pod.name, reason: "Gone" });
      continue;
    }
    if (!seen) {
      served.add(entry.key);
      continue;
    }
    if (seen.readiness.state === "failed") {
      steps.push({ kind: "forget", key: entry.key, name: pod.name, reason: "Failed" });
      steps.push({
        kind: "delete",
        name: pod.name,
        reason: "Failed",
        detail: seen.readiness.message,
      });
      continue;
    }
    served.add(entry.key);
  }
  const known = new Set([...entries.values()].map(e => e.pod?.name).filter(Boolean));
  for (const pod of observed) {
    if (known.has(pod.name) || pod.terminating || deleting.has(pod.name)) continue;
    const { readiness } = pod;
    if (readiness.state === "failed") {
      steps.push({ kind: "delete", name: pod.name, reason: "Failed", detail: readiness.message });
    } else if (readiness.state === "starting") {
      // Nobody waits for it: whoever created it is gone.
      steps.push({ kind: "delete", name: pod.name, reason: "NotReady", detail: readiness.detail });
    } else if (!pod.key || !pod.token || pod.idleMs === undefined) {
      steps.push({ kind: "delete", name: pod.name, reason: "Incomplete" });
    } else if (served.has(pod.key)) {
      steps.push({ kind: "delete", name: pod.name, reason: "Duplicate" });
    } else {
      served.add(pod.key);
      steps.push({
        kind: "adopt",
        key: pod.key,
        pod: { name: pod.name, token: pod.token, address: readiness.address, running: 0 },
        idleMs: pod.idleMs,
      });
    }
  }
  return steps;
}
