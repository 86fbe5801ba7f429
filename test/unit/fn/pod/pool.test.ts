import {
  planAcquire,
  planIdle,
  planLost,
  planRelease,
  planRoom,
  planSync,
  type ObservedPod,
  type PoolEntry,
  type ServingPod,
} from "../../../../lib/fn/pod";

const limits = { maxRunsPerPod: 2, maxWaitingPerPod: 3 };
const ready = (name: string, running = 0, readyAtMs = 0): ServingPod => ({
  name,
  token: `token-${name}`,
  address: "10.244.0.7",
  running,
  readyAtMs,
});
const entry = (pod?: ServingPod, more: Partial<PoolEntry> = {}): PoolEntry => ({
  key: "k1",
  pod,
  waiting: 0,
  lastUsedMs: 1000,
  idleMs: 500,
  ...more,
});

describe("planAcquire: one warm Pod per function, reused", () => {
  it("makes a Pod when there is none", () => {
    expect(planAcquire(undefined, limits)).toEqual({ kind: "create" });
    expect(planAcquire(entry(), limits)).toEqual({ kind: "create" });
  });

  it("sends runs to the Ready Pod up to its bound, then queues them", () => {
    const pod = ready("p1", 1);
    expect(planAcquire(entry(pod), limits)).toEqual({ kind: "run", pod });
    expect(planAcquire(entry(ready("p1", 2)), limits)).toEqual({ kind: "wait", for: "slot" });
  });

  it("queues behind runs already waiting, so none is overtaken", () => {
    expect(planAcquire(entry(ready("p1", 0), { waiting: 1 }), limits)).toEqual({
      kind: "wait",
      for: "slot",
    });
  });

  it("waits for a Pod that is starting instead of making another", () => {
    const starting: ServingPod = { name: "p1", token: "t", running: 0 };
    expect(planAcquire(entry(starting), limits)).toEqual({ kind: "wait", for: "start" });
  });

  it("refuses beyond the queue's bound, with a named reason", () => {
    const full = entry(ready("p1", 2), { waiting: 3 });
    expect(planAcquire(full, limits)).toEqual({
      kind: "reject",
      reason: "QueueFull",
      message: "3 runs already wait for Pod p1 (at most 3)",
    });
    // A starting Pod's queue also holds the runs it will take at once when Ready.
    const starting = { name: "p1", token: "t", running: 0 };
    expect(planAcquire(entry(starting, { waiting: 4 }), limits).kind).toBe("wait");
    expect(planAcquire(entry(starting, { waiting: 5 }), limits)).toEqual({
      kind: "reject",
      reason: "QueueFull",
      message: "5 runs already wait for Pod p1 (at most 5)",
    });
  });
});

describe("planRelease", () => {
  it("hands the place to the first waiting run", () => {
    const pod = ready("p1", 1);
    expect(planRelease(entry(pod, { waiting: 2 }), "p1", 2000)).toEqual({ kind: "handoff", pod });
  });

  it("schedules an idle check idleMs after the last run", () => {
    expect(planRelease(entry(ready("p1")), "p1", 2000)).toEqual({
      kind: "idle-check",
      atMs: 2500,
    });
  });

  it("does nothing for a Pod that was replaced meanwhile", () => {
    expect(planRelease(entry(ready("p2"), { waiting: 1 }), "p1", 2000)).toEqual({ kind: "none" });
    expect(planRelease(undefined, "p1", 2000)).toEqual({ kind: "none" });
  });
});

describe("planRoom: at most maxPods function Pods", () => {
  const at = (key: string, pod: ServingPod | undefined, more: Partial<PoolEntry> = {}) =>
    entry(pod, { key, ...more });

  it("makes a Pod below the bound, counting starting Pods and not entries without one", () => {
    const starting: ServingPod = { name: "s", token: "t", running: 0 };
    expect(planRoom([at("a", ready("p1", 1)), at("b", starting), at("c", undefined)], 3)).toEqual({
      kind: "room",
    });
  });

  it("at the bound replaces the least recently used idle Pod", () => {
    const older = ready("old");
    const entries = [
      at("a", ready("busy", 1), { lastUsedMs: 1 }),
      at("b", older, { lastUsedMs: 10 }),
      at("c", ready("newer"), { lastUsedMs: 20 }),
      at("d", ready("awaited"), { lastUsedMs: 5, waiting: 1 }),
    ];
    expect(planRoom(entries, 4)).toEqual({ kind: "evict", key: "b", pod: older });
  });

  it("at the bound with none idle fails the run, naming the bound and its setting", () => {
    const starting: ServingPod = { name: "s", token: "t", running: 0 };
    expect(planRoom([at("a", ready("busy", 1)), at("b", starting)], 2)).toEqual({
      kind: "full",
      reason: "TooManyPods",
      message:
        "2 function Pods run already, none of them idle, and at most 2 may (PORCH_PEPR_FN_MAX_PODS)",
    });
  });
});

describe("planIdle: a Pod unused for idleMs is deleted", () => {
  it("deletes it once idleMs passed since its last run", () => {
    const pod = ready("p1");
    expect(planIdle(entry(pod), 1500)).toEqual({ kind: "delete", pod });
    expect(planIdle(entry(pod), 9999)).toEqual({ kind: "delete", pod });
  });

  it("checks again later when it was used since", () => {
    expect(planIdle(entry(ready("p1"), { lastUsedMs: 1400 }), 1500)).toEqual({
      kind: "idle-check",
      atMs: 1900,
    });
  });

  it("keeps a Pod with runs in flight or waiting, and one that is starting", () => {
    expect(planIdle(entry(ready("p1", 1)), 9999)).toEqual({ kind: "none" });
    expect(planIdle(entry(ready("p1"), { waiting: 1 }), 9999)).toEqual({ kind: "none" });
    expect(planIdle(entry({ name: "p1", token: "t", running: 0 }), 9999)).toEqual({
      kind: "none",
    });
    expect(planIdle(undefined, 9999)).toEqual({ kind: "none" });
  });
});

describe("planLost: a Pod gone or not answering is replaced once per run", () => {
  it("replaces the Pod the run was sent to", () => {
    const pod = ready("p1");
    expect(planLost(entry(pod), "p1", false)).toEqual({ kind: "replace", pod });
  });

  it("retries on the Pod another run already put in its place", () => {
    expect(planLost(entry(ready("p2")), "p1", false)).toEqual({ kind: "retry" });
    expect(planLost(undefined, "p1", false)).toEqual({ kind: "retry" });
  });

  it("fails the run when it had its replacement, dropping the replacement that also failed", () => {
    const pod = ready("p2");
    expect(planLost(entry(pod), "p2", true)).toEqual({
      kind: "fail",
      reason: "PodUnreachable",
      drop: pod,
    });
    expect(planLost(entry(ready("p3")), "p2", true)).toEqual({
      kind: "fail",
      reason: "PodUnreachable",
    });
  });
});

const observed = (name: string, more: Partial<ObservedPod> = {}): ObservedPod => ({
  name,
  key: "k1",
  token: `token-${name}`,
  idleMs: 700,
  terminating: false,
  readiness: { state: "ready", address: "10.244.0.9" },
  ...more,
});
const view = (entries: PoolEntry[] = [], deleting: string[] = [], listedAtMs = 5000) => ({
  entries: new Map(entries.map(e => [e.key, e])),
  deleting: new Set(deleting),
  listedAtMs,
});

describe("planSync: Pods left by an earlier process are adopted or deleted", () => {
  it("adopts a Ready Pod of ours with its token and idleMs (start-up)", () => {
    expect(planSync(view(), [observed("old")])).toEqual([
      {
        kind: "adopt",
        key: "k1",
        pod: { name: "old", token: "token-old", address: "10.244.0.9", running: 0 },
        idleMs: 700,
      },
    ]);
  });

  it("keeps one Pod per template: a second Ready one is a duplicate", () => {
    expect(planSync(view(), [observed("a"), observed("b")])).toEqual([
      expect.objectContaining({ kind: "adopt", key: "k1" }),
      { kind: "delete", name: "b", reason: "Duplicate" },
    ]);
    expect(planSync(view([entry(ready("mine"))]), [observed("mine"), observed("b")])).toEqual([
      { kind: "delete", name: "b", reason: "Duplicate" },
    ]);
  });

  it("deletes failed, unready and incomplete leftovers, saying why", () => {
    const steps = planSync(view(), [
      observed("failed", {
        readiness: { state: "failed", reason: "ImagePullBackOff", message: "no such image" },
      }),
      observed("starting", { readiness: { state: "starting", detail: "phase Pending" } }),
      observed("no-token", { token: undefined }),
      observed("no-key", { key: undefined, name: "no-key" }),
    ]);
    expect(steps).toEqual([
      { kind: "delete", name: "failed", reason: "Failed", detail: "no such image" },
      { kind: "delete", name: "starting", reason: "NotReady", detail: "phase Pending" },
      { kind: "delete", name: "no-token", reason: "Incomplete" },
      { kind: "delete", name: "no-key", reason: "Incomplete" },
    ]);
  });

  it("leaves Pods being deleted, or already terminating, alone", () => {
    expect(
      planSync(view([], ["going"]), [observed("going"), observed("t", { terminating: true })]),
    ).toEqual([]);
  });

  it("forgets a Pod it uses that is gone, terminating or failed", () => {
    const entries = [
      entry(ready("gone")),
      entry(ready("ending"), { key: "k2" }),
      entry(ready("broken"), { key: "k3" }),
    ];
    const steps = planSync(view(entries), [
      observed("ending", { key: "k2", terminating: true }),
      observed("broken", {
        key: "k3",
        readiness: { state: "failed", reason: "WrapperExited", message: "exit 2" },
      }),
    ]);
    expect(steps).toEqual([
      { kind: "forget", key: "k1", name: "gone", reason: "Gone" },
      { kind: "forget", key: "k2", name: "ending", reason: "Gone" },
      { kind: "forget", key: "k3", name: "broken", reason: "Failed" },
      { kind: "delete", name: "broken", reason: "Failed", detail: "exit 2" },
    ]);
  });

  it("does not forget a Pod made or Ready after the list was asked for", () => {
    const starting = entry({ name: "new", token: "t", running: 0 });
    const justReady = entry(ready("fresh", 0, 5000), { key: "k2" });
    expect(planSync(view([starting, justReady], [], 5000), [])).toEqual([]);
  });
});
