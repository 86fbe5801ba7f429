import {
  capacityDecision,
  capacityDelayMs,
  CapacityRetries,
  DEFAULT_CAPACITY_BACKOFF,
  retryNote,
} from "../../../lib/fn/capacity-retry";
import { failedRun } from "../../../lib/fn/pod";
import { renderPackage } from "../../../lib/fn";
import { responseFromOutput } from "../../../lib/fn/run-output";
import type { FunctionRuntime } from "../../../lib/fn";

const busy = (reason: string) => ({ status: "False", reason });

describe("capacityDecision", () => {
  it("retries a capacity failure when due, and at once when nothing is remembered", () => {
    for (const reason of ["TooManyPods", "QueueFull", "PodBusy"]) {
      expect(capacityDecision(busy(reason), undefined, 1000)).toEqual({ kind: "now" });
      expect(capacityDecision(busy(reason), { attempt: 1, dueAtMs: 5000 }, 1000)).toEqual({
        kind: "wait",
        afterMs: 4000,
      });
      expect(capacityDecision(busy(reason), { attempt: 1, dueAtMs: 5000 }, 5000)).toEqual({
        kind: "now",
      });
    }
  });

  it("never retries a bound the input exceeded, a failed function, or a render that succeeded", () => {
    const pending = { attempt: 3, dueAtMs: 0 };
    for (const reason of [
      "FunctionMemoryLimit",
      "FunctionOutputLimit",
      "FunctionTimeout",
      "RenderTimeout",
      "TooManyFunctions",
      "RenderFailed",
    ])
      expect(capacityDecision(busy(reason), pending, 1000)).toEqual({ kind: "none" });
    expect(capacityDecision({ status: "True", reason: "Rendered" }, pending, 1000)).toEqual({
      kind: "none",
    });
    expect(capacityDecision(undefined, pending, 1000)).toEqual({ kind: "none" });
  });
});

describe("capacityDelayMs", () => {
  it("doubles from 5 s to 5 min, keeping between half and all of it", () => {
    const full = [1, 2, 3, 4, 5, 6, 7, 8, 40].map(n =>
      capacityDelayMs(n, DEFAULT_CAPACITY_BACKOFF, 0.999999),
    );
    expect(full).toEqual([5000, 10000, 20000, 40000, 80000, 160000, 300000, 300000, 300000]);
    expect(capacityDelayMs(1, DEFAULT_CAPACITY_BACKOFF, 0)).toBe(2500);
    expect(capacityDelayMs(7, DEFAULT_CAPACITY_BACKOFF, 0)).toBe(150000);
    expect(capacityDelayMs(2, DEFAULT_CAPACITY_BACKOFF, 0.5)).toBe(7500);
  });
});

describe("CapacityRetries", () => {
  const sequence = (...values: number[]) => {
    let i = 0;
    return () => values[i++ % values.length];
  };

  it("counts failures in a row, and starts over once forgotten", () => {
    const retries = new CapacityRetries({ ...DEFAULT_CAPACITY_BACKOFF, random: sequence(0, 0.5) });
    expect(retries.failed("ns/a", 0)).toEqual({ attempt: 1, dueAtMs: 2500 });
    expect(retries.failed("ns/a", 2500)).toEqual({ attempt: 2, dueAtMs: 2500 + 7500 });
    retries.forget("ns/a");
    expect(retries.failed("ns/a", 20000)).toEqual({ attempt: 1, dueAtMs: 22500 });
  });

  it("keeps a quarter of maxEntries per namespace, forgetting its revision that failed longest ago", () => {
    const retries = new CapacityRetries({
      ...DEFAULT_CAPACITY_BACKOFF,
      maxEntries: 8,
      random: () => 0,
    });
    retries.failed("ns/a", 0);
    retries.failed("ns/b", 0);
    retries.failed("ns/a", 10); // a failed again: b is now the oldest
    retries.failed("ns/c", 20);
    expect(retries.size).toBe(2);
    expect(retries.get("ns/b")).toBeUndefined();
    expect(retries.get("ns/a")?.attempt).toBe(2);
    expect(retries.get("ns/c")?.attempt).toBe(1);
  });

  // One map for the process, oldest out: a tenant's 10,000 failing revisions pushed every other
  // tenant's backoff back to its first, 5 s step (an attacker's review).
  it("does not forget another namespace's retries for one namespace's many", () => {
    const retries = new CapacityRetries({
      ...DEFAULT_CAPACITY_BACKOFF,
      maxEntries: 8,
      random: () => 0,
    });
    retries.failed("quiet/x", 0);
    retries.failed("quiet/x", 10);
    for (let i = 0; i < 100; i++) retries.failed(`noisy/r${i}`, 20);
    expect(retries.get("quiet/x")?.attempt).toBe(2);
    expect(retries.size).toBe(3);
  });

  it("keeps at most maxEntries in all, forgetting from the namespace that holds most", () => {
    const retries = new CapacityRetries({
      ...DEFAULT_CAPACITY_BACKOFF,
      maxEntries: 4,
      random: () => 0,
    });
    for (const ns of ["a", "b", "c", "d", "e"]) retries.failed(`${ns}/r`, 0);
    expect(retries.size).toBe(4);
    expect(retries.get("a/r")).toBeUndefined();
    expect(retries.get("e/r")?.attempt).toBe(1);
  });

  it("says when the retry is", () => {
    expect(
      retryNote({ attempt: 2, dueAtMs: Date.UTC(2026, 0, 1, 0, 0, 7, 500) }, Date.UTC(2026, 0, 1)),
    ).toBe(
      "shared capacity was busy, not a fault of the package: render retry 2 at 2026-01-01T00:00:07.500Z (in 8 s), or sooner when the files change",
    );
  });
});

describe("a render whose function found no capacity", () => {
  it("fails with the capacity reason, not RenderFailed", async () => {
    const full = "20 function Pods run already, none of them idle, and at most 20 may";
    const runtime: FunctionRuntime = {
      describe: () => "all Pods busy",
      resolve: fn => ({
        runtime: "pod",
        run: async () => failedRun(fn.image ?? "", "TooManyPods", full),
      }),
    };
    const kptfile =
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n    - image: example.com/fns/labeller:v1\n";
    const out = await renderPackage({ Kptfile: kptfile }, { runtime });
    expect(out.error?.reason).toBe("TooManyPods");
    expect(out.error?.message).toContain(`(pod runtime): TooManyPods: ${full}`);
  });

  it("keeps a process runtime's capacity reason (the built-in pool's full queue)", () => {
    const outcome = { stdout: "", stderr: "", exitCode: 1, failure: "8 runs waiting" };
    const request = { items: [], functionConfig: undefined };
    expect(responseFromOutput(request, { ...outcome, capacity: "QueueFull" }).capacity).toBe(
      "QueueFull",
    );
  });
});
