import { metricsCollector } from "pepr";
import { GitStoreError } from "../../../lib/git";
import {
  Controller,
  GIT_RETRY_MAX_MS,
  maxRetryDelayOf,
  namespaceDepthMetricName,
  queueDepthGaugeNames,
  reconcileCounterName,
} from "../../../capabilities/shared/controller";

describe("reconcileCounterName", () => {
  it.each([
    ["PackageVariantSet", "reconciles_package_variant_set_total"],
    ["PackageRevision", "reconciles_package_revision_total"],
    ["Repository", "reconciles_repository_total"],
  ])("%s → %s", (controller, name) => expect(reconcileCounterName(controller)).toBe(name));
});

describe("Controller", () => {
  it("counts every reconcile it runs on the module's /metrics, failures and retries included", async () => {
    let calls = 0;
    const controller = new Controller(
      "CounterProbe",
      async () => {
        calls++;
        if (calls === 1) throw new Error("first attempt fails");
      },
      { baseDelayMs: 1 },
    );
    const value = async () => {
      const line = (await metricsCollector.getMetrics())
        .split("\n")
        .find(l => l.startsWith("pepr_reconciles_counter_probe_total "));
      return Number(line?.split(" ")[1]);
    };
    expect(await value()).toBe(0);
    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"] });
    try {
      controller.queue.add("ns/a");
      controller.queue.add("ns/b");
      await controller.queue.idle();
      await jest.advanceTimersByTimeAsync(50); // the retry of ns/a after its backoff
      await controller.queue.idle();
    } finally {
      jest.useRealTimers();
    }
    expect(calls).toBe(3);
    expect(await value()).toBe(3);
    controller.queue.stop();
  });
});

/** A controller of one worker whose reconciles end when `drain` lets them, one by one. */
function heldController(name: string) {
  const release: (() => void)[] = [];
  const controller = new Controller(
    name,
    () => new Promise<void>(resolve => release.push(resolve)),
    { concurrency: 1 },
  );
  const drain = async () => {
    while (release.length > 0 || controller.queue.pending > 0) {
      release.shift()?.();
      await new Promise(r => setImmediate(r));
    }
  };
  return { controller, drain };
}

describe("queue depth on /metrics", () => {
  it("names the gauges after the controller", () =>
    expect(queueDepthGaugeNames("PackageVariantSet")).toEqual({
      depth: "queue_depth_package_variant_set",
      peak: "queue_depth_package_variant_set_peak",
    }));

  it("serves the queue's depth now and its highest depth so far", async () => {
    const { controller, drain } = heldController("DepthProbe");
    const value = async (name: string) => {
      const line = (await metricsCollector.getMetrics())
        .split("\n")
        .find(l => l.startsWith(`pepr_${name} `));
      return Number(line?.split(" ")[1]);
    };
    const { depth, peak } = queueDepthGaugeNames("DepthProbe");
    for (const key of ["ns/a", "ns/b", "ns/c"]) controller.queue.add(key);
    expect(await value(depth)).toBe(3);
    await drain();
    expect(await value(depth)).toBe(0);
    expect(await value(peak)).toBe(3);
    controller.queue.stop();
  });
});

describe("queue depth per namespace on /metrics", () => {
  it("serves a series per namespace with work, and drops it when the work is done", async () => {
    const { controller, drain } = heldController("NamespaceProbe");
    const metric = namespaceDepthMetricName("NamespaceProbe");
    expect(metric).toBe("pepr_namespace_queue_depth_namespace_probe");
    const series = async () => {
      const text = await metricsCollector.getMetrics();
      // Pepr's own metrics are still served alongside.
      expect(text).toContain("pepr_queue_depth_namespace_probe ");
      expect(text).toContain(`\n# TYPE ${metric} gauge\n`);
      return text.split("\n").filter(l => l.startsWith(`${metric}{`));
    };
    expect(await series()).toEqual([]);
    for (const key of ["tenant-a/1", "tenant-a/2", "tenant-b/1", "/cluster"])
      controller.queue.add(key);
    expect(await series()).toEqual([
      `${metric}{namespace="tenant-a"} 2`,
      `${metric}{namespace="tenant-b"} 1`,
      `${metric}{namespace=""} 1`,
    ]);
    await drain();
    expect(await series()).toEqual([]);
    controller.queue.stop();
  });
});

describe("maxRetryDelayOf", () => {
  it("caps the retries of a git server that was down or slow at 20 s, and nothing else", () => {
    expect(maxRetryDelayOf(new GitStoreError("Unavailable", "connection refused"))).toBe(
      GIT_RETRY_MAX_MS,
    );
    expect(maxRetryDelayOf(new GitStoreError("Timeout", "no answer"))).toBe(GIT_RETRY_MAX_MS);
    // git's own failure (a URL that answers 404) keeps the default pace: it does not end by itself.
    expect(maxRetryDelayOf(new GitStoreError("Transport", "HTTP 404"))).toBeUndefined();
    expect(maxRetryDelayOf(new Error("conflict"))).toBeUndefined();
  });
});
