import { parseDocument } from "yaml";
import {
  createPodRuntime,
  type PodRuntime,
} from "../../../../capabilities/shared/function-pods/runtime";
import type { WrapperTransport } from "../../../../capabilities/shared/function-pods/wrapper-client";
import type { Logger } from "../../../../capabilities/context";
import { PodKind, type Pod } from "../../../../lib/cluster/kinds";
import { podTemplate, DEFAULT_POD_RUNTIME_LIMITS, type WrapperCall } from "../../../../lib/fn/pod";
import type { PodFunction, PodRuntimeSettings } from "../../../../lib/fn/pod-function";
import { FunctionRuntimeError } from "../../../../lib/fn/runtime";
import type { RunRequest } from "../../../../lib/fn/types";
import { MemoryCluster } from "../../../support/memory-cluster";

// The pool against an in-memory API server: a fake kubelet makes each new Pod Ready (or fails
// it), and a fake wrapper answers runs. What the API saw is counted from the cluster's journal.

const fn: PodFunction = {
  image: "localhost/porch-pepr/labeller:abc",
  entrypoint: ["/usr/local/bin/function"],
  resources: {},
  timeoutMs: 5000,
  idleMs: 60_000,
};
const settings: PodRuntimeSettings = {
  namespace: "fns",
  serviceAccountName: "runner",
  wrapperImage: "localhost/porch-pepr/function-wrapper:abc",
};
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const request = (): RunRequest => ({
  items: [
    {
      doc: parseDocument("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"),
      path: "a.yaml",
      index: 0,
    },
  ],
  functionConfig: undefined,
});

let ips = 0;
/** A kubelet: Pods become Ready with an IP, or show `waiting` (e.g. ImagePullBackOff). */
function kubelet(cluster: MemoryCluster, waiting?: string): void {
  cluster.onWrite((phase, obj, kind) => {
    if (kind.kind !== "Pod" || phase !== "ADDED") return;
    const ref = { namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? "" };
    const status = waiting
      ? {
          phase: "Pending",
          containerStatuses: [
            { name: "function", state: { waiting: { reason: waiting, message: "no registry" } } },
          ],
        }
      : {
          phase: "Running",
          podIP: `10.244.0.${++ips}`,
          conditions: [{ type: "Ready", status: "True" }],
        };
    setImmediate(
      () =>
        void cluster
          .patch(PodKind, ref, { merge: { status } }, { status: true })
          .catch(() => undefined),
    );
  });
}

/** A wrapper that echoes the ResourceList (the identity function); counts runs at once. */
function wrapper(answer?: (address: string) => WrapperCall | undefined) {
  const seen = { runs: 0, inFlight: 0, maxInFlight: 0, addresses: new Set<string>() };
  const transport: WrapperTransport = async (target, body) => {
    seen.runs += 1;
    seen.inFlight += 1;
    seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
    seen.addresses.add(target.address);
    await new Promise(r => setTimeout(r, 5));
    seen.inFlight -= 1;
    return (
      answer?.(target.address) ?? {
        kind: "answered",
        status: 200,
        body: JSON.stringify({
          exitCode: 0,
          stdout: Buffer.from(body).toString("base64"),
          stderr: "",
        }),
      }
    );
  };
  return { seen, transport };
}

const creates = (cluster: MemoryCluster) =>
  cluster.calls.filter(c => c.startsWith("create Pod")).length;
const deletes = (cluster: MemoryCluster) => cluster.calls.filter(c => c.startsWith("delete Pod"));
const pods = (cluster: MemoryCluster) => cluster.list(PodKind, { namespace: "fns" });

let runtime: PodRuntime | undefined;
afterEach(() => runtime?.close());

// Outcomes are awaited with generous bounds, never timed: a loaded machine is only slower.
jest.setTimeout(60_000);

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise(r => setTimeout(r, 10));
  }
  throw new Error(`never: ${what}`);
}

describe("the Pod runtime's pool", () => {
  it("runs at most maxPods Pods: a new one replaces an idle one, and with none idle its run fails", async () => {
    const cluster = new MemoryCluster().serve(PodKind);
    kubelet(cluster);
    let hold: (() => void) | undefined;
    const held = new Promise<void>(r => (hold = r));
    const { transport } = wrapper();
    // The first Pod made gets the first address: its runs wait until released.
    const slowFirst: WrapperTransport = async (target, body, bounds) => {
      if (target.address === "10.244.0.1") await held;
      return transport(target, body, bounds);
    };
    ips = 0;
    runtime = createPodRuntime(cluster, silent, { transport: slowFirst, maxPods: 1 });
    const first = runtime.runner(fn, settings);
    const second = runtime.runner({ ...fn, image: "localhost/porch-pepr/other:abc" }, settings);

    // The first function's Pod is busy (its run is held): the second cannot have a Pod.
    const busy = first.run(request());
    await until("the first Pod", async () =>
      (await pods(cluster)).length === 1 ? true : undefined,
    );
    const refused = await second.run(request());
    expect(refused.failure).toBe(
      'function image "localhost/porch-pepr/other:abc" (pod runtime): TooManyPods: 1 function Pods run already, none of them idle, and at most 1 may (PORCH_PEPR_FN_MAX_PODS)',
    );
    // Capacity, not a bound of the function: the render is retried on its own.
    expect([refused.capacity, refused.bound]).toEqual(["TooManyPods", undefined]);
    hold?.();
    expect((await busy).failure).toBeUndefined();

    // Idle now: the second function's Pod takes its place.
    expect((await second.run(request())).failure).toBeUndefined();
    expect(creates(cluster)).toBe(2);
    expect(deletes(cluster)).toHaveLength(1);
    const left = await until("one Pod left", async () => {
      const now = await pods(cluster);
      return now.length === 1 ? now : undefined;
    });
    expect(left[0].spec?.containers?.find(c => c.name === "function")?.image).toBe(
      "localhost/porch-pepr/other:abc",
    );
  });

  it("serves 20 runs, 10 at once, from one Pod, never more at once than its bound", async () => {
    const cluster = new MemoryCluster().serve(PodKind);
    kubelet(cluster);
    const { seen, transport } = wrapper();
    runtime = createPodRuntime(cluster, silent, { transport, maxRunsPerPod: 3 });
    const runner = runtime.runner(fn, settings);
    expect(runner.runtime).toBe("pod");
    const first = await Promise.all(Array.from({ length: 10 }, () => runner.run(request())));
    for (let i = 0; i < 10; i++) first.push(await runner.run(request()));
    for (const response of first) {
      expect(response.failure).toBeUndefined();
      expect(response.items[0].doc.toString()).toContain("name: a");
    }
    expect(creates(cluster)).toBe(1);
    expect(seen.runs).toBe(20);
    expect(seen.addresses.size).toBe(1);
    expect(seen.maxInFlight).toBe(3);
    expect(await pods(cluster)).toHaveLength(1);
  });

  it("fails runs beyond its queue with QueueFull", async () => {
    const cluster = new MemoryCluster().serve(PodKind);
    kubelet(cluster);
    const { transport } = wrapper();
    runtime = createPodRuntime(cluster, silent, {
      transport,
      maxRunsPerPod: 1,
      maxWaitingPerPod: 2,
    });
    const runner = runtime.runner(fn, settings);
    // While the Pod starts: 1 to run at once and 2 waiting, so the 4th is refused.
    const responses = await Promise.all(Array.from({ length: 4 }, () => runner.run(request())));
    const failures = responses.map(r => r.failure).filter(Boolean);
    expect(failures).toEqual([
      `function image "${fn.image}" (pod runtime): QueueFull: 3 runs already wait for Pod ${(await pods(cluster))[0].metadata?.name} (at most 3)`,
    ]);
    expect(responses.map(r => r.capacity).filter(Boolean)).toEqual(["QueueFull"]);
  });

  it("adopts a Ready Pod an earlier process left, instead of making one", async () => {
    const cluster = new MemoryCluster().serve(PodKind);
    const template = podTemplate(fn, settings, DEFAULT_POD_RUNTIME_LIMITS);
    const left: Pod = template.build(template.name("older"), "t".repeat(64));
    await cluster.create(PodKind, left);
    await cluster.patch(
      PodKind,
      { namespace: "fns", name: left.metadata!.name! },
      {
        merge: {
          status: {
            phase: "Running",
            podIP: "10.244.0.200",
            conditions: [{ type: "Ready", status: "True" }],
          },
        },
      },
      { status: true },
    );
    const { seen, transport } = wrapper();
    runtime = createPodRuntime(cluster, silent, { transport });
    const response = await runtime.runner(fn, settings).run(request());
    expect(response.failure).toBeUndefined();
    expect(creates(cluster)).toBe(1); // the test's own
    expect([...seen.addresses]).toEqual(["10.244.0.200"]);
  });

  it("deletes what an earlier process left that it cannot use", async () => {
    const cluster = new MemoryCluster().serve(PodKind);
    const template = podTemplate(fn, settings, DEFAULT_POD_RUNTIME_LIMITS);
    await cluster.create(PodKind, template.build(template.name("unready"), "t".repeat(64)));
    runtime = createPodRuntime(cluster, silent, { transport: wrapper().transport });
    runtime.runner(fn, settings);
    await until("the unready leftover deleted", async () =>
      (await pods(cluster)).length === 0 ? true : undefined,
    );
    expect(deletes(cluster)).toEqual([`delete Pod fns/${template.name("unready")}`]);
  });

  it("replaces a Pod that does not answer, once per run", async () => {
    const cluster = new MemoryCluster().serve(PodKind);
    kubelet(cluster);
    let dead = "";
    const { seen, transport } = wrapper(address =>
      !dead || address === dead
        ? ((dead = address), { kind: "unreachable", message: "connect ECONNREFUSED" })
        : undefined,
    );
    runtime = createPodRuntime(cluster, silent, { transport });
    const response = await runtime.runner(fn, settings).run(request());
    expect(response.failure).toBeUndefined();
    expect(creates(cluster)).toBe(2);
    expect(seen.addresses.size).toBe(2);
    expect(deletes(cluster)).toHaveLength(1);

    // Every Pod lost: the run fails after its one replacement, naming the reason.
    const { transport: never } = wrapper(() => ({
      kind: "unreachable",
      message: "connect EHOSTUNREACH",
    }));
    const cluster2 = new MemoryCluster().serve(PodKind);
    kubelet(cluster2);
    runtime.close();
    runtime = createPodRuntime(cluster2, silent, { transport: never });
    const failed = await runtime.runner(fn, settings).run(request());
    expect(failed.failure).toMatch(
      /^function image ".*labeller:abc" \(pod runtime\): PodUnreachable: Pod fn-labeller-\w+-\w+: connect EHOSTUNREACH/,
    );
    expect(creates(cluster2)).toBe(2);
  });

  it("fails every waiting run when its Pod cannot start, and makes no second Pod for them", async () => {
    const cluster = new MemoryCluster().serve(PodKind);
    kubelet(cluster, "ImagePullBackOff");
    runtime = createPodRuntime(cluster, silent, { transport: wrapper().transport });
    const runner = runtime.runner(fn, settings);
    const responses = await Promise.all(Array.from({ length: 3 }, () => runner.run(request())));
    for (const response of responses)
      expect(response.failure).toMatch(
        /^function image ".*labeller:abc" \(pod runtime\): PodStartFailed: Pod fn-labeller-\w+-\w+: ImagePullBackOff: container function: no registry$/,
      );
    expect(creates(cluster)).toBe(1);
    await until("the failed Pod deleted", async () =>
      (await pods(cluster)).length === 0 ? true : undefined,
    );
  });

  it("deletes a Pod idle for idleMs", async () => {
    const cluster = new MemoryCluster().serve(PodKind);
    kubelet(cluster);
    runtime = createPodRuntime(cluster, silent, { transport: wrapper().transport });
    const response = await runtime.runner({ ...fn, idleMs: 50 }, settings).run(request());
    expect(response.failure).toBeUndefined();
    expect(await pods(cluster)).toHaveLength(1);
    await until("the idle Pod deleted", async () =>
      (await pods(cluster)).length === 0 ? true : undefined,
    );
    expect(deletes(cluster)).toHaveLength(1);
  });

  it("refuses a catalog entry with problems when the runner is made, naming them", () => {
    runtime = createPodRuntime(new MemoryCluster().serve(PodKind), silent, {
      transport: wrapper().transport,
    });
    expect(() => runtime!.runner({ ...fn, entrypoint: [] }, settings)).toThrow(
      FunctionRuntimeError,
    );
    expect(() => runtime!.runner({ ...fn, entrypoint: [] }, settings)).toThrow(
      `function image "${fn.image}" (pod runtime): InvalidFunction: entrypoint must have 1 to 64 elements`,
    );
  });
});
