import { randomBytes } from "node:crypto";
import { PodKind } from "../../../lib/cluster/kinds";
import type { Cluster } from "../../../lib/cluster/port";
import { errorMessage } from "../../../lib/errors";
import {
  failedRun,
  FUNCTION_POD_LABELS,
  maxAnswerBytes,
  observePod,
  planAcquire,
  planIdle,
  planRoom,
  planLost,
  planRelease,
  planSync,
  podReadiness,
  podRunResponse,
  readCall,
  WRAPPER_PORT,
  type IdleStep,
  type PodFailureReason,
  type PodRuntimeLimits,
  type PodTemplate,
  type PoolEntry,
  type ReadyPod,
  type ReleaseStep,
  type ServingPod,
  type WrapperCall,
} from "../../../lib/fn/pod";
import { toResourceListYaml } from "../../../lib/fn/resource-list";
import type { RunRequest, RunResponse } from "../../../lib/fn/types";
import type { Logger } from "../../context";
import type { WrapperTransport } from "./wrapper-client";

/** What a waiting run is woken with. */
type Wake =
  | { kind: "slot"; pod: ReadyPod }
  | { kind: "replan" }
  | { kind: "failed"; response: RunResponse };

type Acquired = { pod: ReadyPod } | { response: RunResponse };

export interface PoolParts {
  cluster: Cluster;
  log: Logger;
  limits: PodRuntimeLimits;
  transport: WrapperTransport;
  now?: () => number;
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms).unref());

/** Pod names end in five random characters: a name is never reused, even across processes. */
const randomSuffix = () =>
  [...randomBytes(5)].map(b => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");

/**
 * The warm function Pods of one namespace: carries out the plans of lib/fn/pod/pool.ts against
 * the cluster (through the port) and the wrappers (over HTTP). One Pod per function template,
 * created on first use; runs go to it up to `maxRunsPerPod` at once and wait beyond, up to
 * `maxWaitingPerPod`; it is deleted after its function's idleMs without runs, and replaced once
 * per run when it is gone or does not answer. At start and every `syncIntervalMs` it compares
 * itself with the Pods the API lists (planSync), so Pods an earlier process left are adopted or
 * deleted, and nothing it failed to delete stays.
 */
export class FunctionPodPool {
  readonly #entries = new Map<string, PoolEntry>();
  readonly #waiters = new Map<string, ((wake: Wake) => void)[]>();
  readonly #idleTimers = new Map<string, NodeJS.Timeout>();
  readonly #deleting = new Set<string>();
  /** Pods deleted lately, and when: a list asked for before that may still show them. */
  readonly #deleted = new Map<string, number>();
  readonly #syncTimer: NodeJS.Timeout;
  #syncing: Promise<void> | undefined;
  readonly #startup: Promise<void>;
  #started = false;
  readonly #now: () => number;

  constructor(
    readonly namespace: string,
    private readonly parts: PoolParts,
  ) {
    this.#now = parts.now ?? Date.now;
    this.#startup = this.sync().then(() => {
      this.#started = true;
    });
    this.#syncTimer = setInterval(() => void this.sync(), parts.limits.syncIntervalMs);
    this.#syncTimer.unref();
  }

  close(): void {
    clearInterval(this.#syncTimer);
    for (const timer of this.#idleTimers.values()) clearTimeout(timer);
    this.#idleTimers.clear();
  }

  /** Runs `request` on the template's Pod; never rejects. */
  async run(template: PodTemplate, request: RunRequest): Promise<RunResponse> {
    const { limits } = this.parts;
    const image = template.fn.image;
    const body = toResourceListYaml(request.items, request.functionConfig);
    const size = Buffer.byteLength(body);
    if (size > limits.maxRequestBytes)
      return failedRun(
        image,
        "RequestTooLarge",
        `the ResourceList is ${size} bytes, more than ${limits.maxRequestBytes}`,
      );
    // Adopt what an earlier process left before making a Pod of our own (bounded: a slow list
    // only costs a duplicate Pod, which the next sync deletes).
    if (!this.#started) await Promise.race([this.#startup, sleep(limits.startTimeoutMs)]);
    let replacedOnce = false;
    for (;;) {
      const acquired = await this.#acquire(template);
      if ("response" in acquired) return acquired.response;
      const { pod } = acquired;
      let call: WrapperCall;
      try {
        call = await this.parts.transport(
          { address: pod.address, port: WRAPPER_PORT, token: pod.token },
          body,
          {
            timeoutMs: template.fn.timeoutMs + limits.answerMarginMs,
            maxAnswerBytes: maxAnswerBytes(limits),
          },
        );
      } finally {
        this.#release(template.key, pod);
      }
      const reading = readCall(call);
      switch (reading.kind) {
        case "outcome":
          return podRunResponse(request, image, reading.outcome, reading.reason);
        case "failed":
          if (reading.dropPod) this.#drop(template.key, pod.name, reading.reason);
          return failedRun(image, reading.reason, `Pod ${pod.name}: ${reading.message}`);
        case "lost": {
          const step = planLost(this.#entries.get(template.key), pod.name, replacedOnce);
          switch (step.kind) {
            case "replace":
              this.#drop(template.key, step.pod.name, `did not serve a run: ${reading.message}`);
              replacedOnce = true;
              break;
            case "retry":
              replacedOnce = true;
              break;
            case "fail":
              if (step.drop) this.#drop(template.key, step.drop.name, reading.message);
              return failedRun(
                image,
                step.reason,
                `Pod ${pod.name}: ${reading.message} (after replacing a Pod that did not answer)`,
              );
            default:
              return exhaustive(step);
          }
          continue; // on the Pod that replaced it
        }
        default:
          return exhaustive(reading);
      }
    }
  }

  #entry(template: PodTemplate): PoolEntry {
    let entry = this.#entries.get(template.key);
    if (!entry) {
      entry = {
        key: template.key,
        waiting: 0,
        lastUsedMs: this.#now(),
        idleMs: template.fn.idleMs,
      };
      this.#entries.set(template.key, entry);
    }
    entry.idleMs = template.fn.idleMs;
    return entry;
  }

  async #acquire(template: PodTemplate): Promise<Acquired> {
    for (;;) {
      const entry = this.#entry(template);
      const step = planAcquire(entry, this.parts.limits);
      switch (step.kind) {
        case "run":
          step.pod.running += 1;
          entry.lastUsedMs = this.#now();
          return { pod: step.pod };
        case "create": {
          const room = planRoom(this.#entries.values(), this.parts.limits.maxPods);
          switch (room.kind) {
            case "full":
              return { response: failedRun(template.fn.image, room.reason, room.message) };
            case "evict":
              this.#drop(room.key, room.pod.name, "its place went to another function's Pod");
              break;
            case "room":
              break;
            default:
              return exhaustive(room);
          }
          // The run that makes the Pod waits for it like any other.
          void this.#start(template, entry);
          break;
        }
        case "wait":
          break;
        case "reject":
          return { response: failedRun(template.fn.image, step.reason, step.message) };
        default:
          return exhaustive(step);
      }
      const wake = await this.#wait(entry);
      switch (wake.kind) {
        case "slot":
          return { pod: wake.pod };
        case "failed":
          return { response: { ...wake.response, items: [], results: [] } };
        case "replan":
          continue;
        default:
          return exhaustive(wake);
      }
    }
  }

  #wait(entry: PoolEntry): Promise<Wake> {
    entry.waiting += 1;
    return new Promise(resolve => {
      const queue = this.#waiters.get(entry.key) ?? [];
      queue.push(resolve);
      this.#waiters.set(entry.key, queue);
    });
  }

  #wakeAll(key: string, wake: Wake): void {
    const queue = this.#waiters.get(key) ?? [];
    this.#waiters.delete(key);
    const entry = this.#entries.get(key);
    if (entry) entry.waiting -= queue.length;
    for (const resolve of queue) resolve(wake);
  }

  /** Hands the ended run's place on its Pod to the first waiting run. */
  #wakeFirst(key: string, wake: Wake & { kind: "slot" }): void {
    const resolve = this.#waiters.get(key)?.shift();
    const entry = this.#entries.get(key);
    if (!resolve || !entry) return;
    entry.waiting -= 1;
    wake.pod.running += 1;
    resolve(wake);
  }

  /** Creates the template's Pod and waits until it is Ready; wakes every waiting run then. */
  async #start(template: PodTemplate, entry: PoolEntry): Promise<void> {
    const name = template.name(randomSuffix());
    const token = randomBytes(32).toString("hex");
    const pod: ServingPod = { name, token, running: 0 };
    entry.pod = pod;
    const image = template.fn.image;
    let failure: RunResponse | undefined;
    try {
      await this.parts.cluster.create(PodKind, template.build(name, token));
      this.parts.log.info(`function Pod ${name} created`, { image, namespace: this.namespace });
      const ready = await this.#waitReady(name);
      if ("address" in ready) {
        pod.address = ready.address;
        pod.readyAtMs = this.#now();
      } else failure = failedRun(image, ready.reason, ready.message);
    } catch (error) {
      failure = failedRun(image, "PodCreateFailed", `Pod ${name}: ${errorMessage(error)}`);
    }
    // A sync may have forgotten it meanwhile (it failed or went): then its waiting runs were
    // sent on already, and it is deleted as a leftover.
    const current = this.#entries.get(entry.key)?.pod === pod;
    if (failure) {
      this.parts.log.warn(failure.failure ?? "", { namespace: this.namespace });
      // The runs waiting for it fail with it: none makes another Pod that would fail alike.
      if (current) this.#forget(entry.key, name, { kind: "failed", response: failure });
      // It may exist even when the create call failed (an answer lost on the way).
      void this.#delete(name, "it did not start");
    } else if (current) this.#wakeAll(entry.key, { kind: "replan" });
    else void this.#delete(name, "forgotten while it started");
  }

  async #waitReady(
    name: string,
  ): Promise<{ address: string } | { reason: PodFailureReason; message: string }> {
    const { startTimeoutMs } = this.parts.limits;
    const deadline = this.#now() + startTimeoutMs;
    let delay = 100;
    let last = "not read yet";
    for (;;) {
      try {
        const pod = await this.parts.cluster.get(PodKind, { namespace: this.namespace, name });
        if (!pod)
          return {
            reason: "PodStartFailed",
            message: `Pod ${name} was deleted before it was Ready`,
          };
        const readiness = podReadiness(pod);
        if (readiness.state === "ready") return { address: readiness.address };
        if (readiness.state === "failed")
          return {
            reason: "PodStartFailed",
            message: `Pod ${name}: ${readiness.reason}: ${readiness.message}`,
          };
        last = readiness.detail;
      } catch (error) {
        last = `reading it failed: ${errorMessage(error)}`;
      }
      const left = deadline - this.#now();
      if (left <= 0)
        return {
          reason: "PodStartTimeout",
          message: `Pod ${name} was not Ready within ${startTimeoutMs} ms (${last})`,
        };
      await sleep(Math.min(delay, left));
      delay = Math.min(delay * 2, 1000);
    }
  }

  #release(key: string, pod: ReadyPod): void {
    pod.running -= 1;
    const entry = this.#entries.get(key);
    if (entry?.pod === pod) entry.lastUsedMs = this.#now();
    this.#follow(key, planRelease(entry, pod.name, this.#now()));
  }

  #scheduleIdle(key: string, atMs: number): void {
    clearTimeout(this.#idleTimers.get(key));
    const timer = setTimeout(() => this.#idle(key), Math.max(0, atMs - this.#now()));
    timer.unref();
    this.#idleTimers.set(key, timer);
  }

  #idle(key: string): void {
    this.#idleTimers.delete(key);
    this.#follow(key, planIdle(this.#entries.get(key), this.#now()));
  }

  /** Carries out what the end of a run or an idle check planned for the template's Pod. */
  #follow(key: string, step: ReleaseStep | IdleStep): void {
    switch (step.kind) {
      case "handoff":
        this.#wakeFirst(key, { kind: "slot", pod: step.pod });
        break;
      case "delete": {
        const idleMs = this.#entries.get(key)?.idleMs;
        this.#forget(key, step.pod.name);
        void this.#delete(step.pod.name, `idle for ${idleMs} ms`);
        break;
      }
      case "idle-check":
        this.#scheduleIdle(key, step.atMs);
        break;
      case "none":
        break;
      default:
        return exhaustive(step);
    }
  }

  /** The template's Pod is no longer used: waiting runs plan again (a new Pod), or fail. */
  #forget(key: string, name: string, wake: Wake = { kind: "replan" }): void {
    const entry = this.#entries.get(key);
    if (!entry || entry.pod?.name !== name) return;
    entry.pod = undefined;
    this.#wakeAll(key, wake);
    if (entry.waiting === 0 && !this.#waiters.has(key)) {
      this.#entries.delete(key);
      clearTimeout(this.#idleTimers.get(key));
      this.#idleTimers.delete(key);
    }
  }

  /** Forgets and deletes a Pod that did not serve. */
  #drop(key: string, name: string, why: string): void {
    this.#forget(key, name);
    void this.#delete(name, why);
  }

  async #delete(name: string, why: string): Promise<void> {
    if (this.#deleting.has(name)) return;
    this.#deleting.add(name);
    this.parts.log.info(`deleting function Pod ${name}: ${why}`, { namespace: this.namespace });
    try {
      await this.parts.cluster.delete(PodKind, { namespace: this.namespace, name });
      this.#deleted.set(name, this.#now());
    } catch (error) {
      this.parts.log.warn(
        `could not delete function Pod ${name} (the next sync tries again): ${errorMessage(error)}`,
        { namespace: this.namespace },
      );
    } finally {
      this.#deleting.delete(name);
    }
  }

  /** Compares the pool with the API's function Pods and acts on the differences; one at a time. */
  sync(): Promise<void> {
    this.#syncing ??= this.#sync().finally(() => (this.#syncing = undefined));
    return this.#syncing;
  }

  async #sync(): Promise<void> {
    const listedAtMs = this.#now();
    let observed;
    try {
      const pods = await this.parts.cluster.list(PodKind, {
        namespace: this.namespace,
        labels: FUNCTION_POD_LABELS,
      });
      observed = pods.map(observePod);
    } catch (error) {
      this.parts.log.warn(`could not list function Pods: ${errorMessage(error)}`, {
        namespace: this.namespace,
      });
      return;
    }
    const deleting = new Set(this.#deleting);
    for (const [name, at] of this.#deleted) {
      if (at >= listedAtMs) deleting.add(name);
      else this.#deleted.delete(name);
    }
    for (const step of planSync({ entries: this.#entries, deleting, listedAtMs }, observed)) {
      switch (step.kind) {
        case "adopt": {
          const now = this.#now();
          const entry = this.#entries.get(step.key) ?? {
            key: step.key,
            waiting: 0,
            lastUsedMs: now,
            idleMs: step.idleMs,
          };
          entry.pod = { ...step.pod, readyAtMs: now };
          entry.lastUsedMs = now;
          this.#entries.set(step.key, entry);
          this.#scheduleIdle(step.key, now + entry.idleMs);
          this.parts.log.info(`adopted function Pod ${step.pod.name}`, {
            namespace: this.namespace,
          });
          break;
        }
        case "delete":
          void this.#delete(step.name, `${step.reason}${step.detail ? ` (${step.detail})` : ""}`);
          break;
        case "forget":
          this.#forget(step.key, step.name);
          break;
        default:
          return exhaustive(step);
      }
    }
  }
}

/** A switch over a plan's steps names every kind: a new kind fails to compile here. */
function exhaustive(value: never): never {
  throw new Error(`unknown step ${JSON.stringify(value)}`);
}
