import { runRender } from "../../../capabilities/package-revision/reconcile";
import { condition } from "../../../capabilities/package-revision/status";
import { PackageRevisionKind, PackageRevisionResourcesKind } from "../../../crd-types";
import { ApiError } from "../../../lib/cluster/errors";
import { createFunctionRuntime, type FunctionRuntime } from "../../../lib/fn";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, draftRevision, labellingKptfile } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const files = { Kptfile: labellingKptfile("app"), "configmap.yaml": configMap("app") };

/** The built-ins, with a look at the render slots each time a function runs. */
function watchingRuntime(onRun: () => void): FunctionRuntime {
  const builtins = createFunctionRuntime();
  return {
    describe: builtins.describe,
    resolve: fn => {
      const runner = builtins.resolve(fn);
      return { runtime: runner.runtime, run: request => (onRun(), runner.run(request)) };
    },
  };
}

describe("runRender: render slots", () => {
  let h: TestOperator;
  const takenDuringRun: number[] = [];
  beforeEach(async () => {
    takenDuringRun.length = 0;
    h = await testOperator({
      renders: 1,
      requeueDelayMs: 1234,
      runtime: watchingRuntime(() => takenDuringRun.push(h.slots.taken)),
    });
  });
  afterEach(() => h.close());

  it("requeues after the configured delay and writes nothing when every slot is taken", async () => {
    const { pr, store } = await draftRevision(h, files);
    expect(h.slots.take("elsewhere")).toBe(true);
    const calls = h.callsFrom();

    const result = await runRender(h.ctx, pr, store);

    expect(result).toEqual({ requeueAfterMs: h.ctx.render.requeueDelayMs });
    expect(result).toEqual({ requeueAfterMs: 1234 });
    expect(calls()).toEqual([
      `get PackageRevisionResources ${pr.metadata?.namespace}/${pr.metadata?.name}`,
    ]);
    expect(takenDuringRun).toEqual([]);
    // The slot it did not get is not given back: the holder still has it.
    expect(h.slots.taken).toBe(1);
    const after = await current(h.cluster, PackageRevisionKind, pr);
    expect(after.status).toBeUndefined();
  });

  it("renders in a free slot and gives it back", async () => {
    const { pr, store, key } = await draftRevision(h, files);

    const result = await runRender(h.ctx, pr, store);

    expect(result).toBeUndefined();
    expect(takenDuringRun).toEqual([1]);
    expect(h.slots.taken).toBe(0);
    const prr = await current(h.cluster, PackageRevisionResourcesKind, pr);
    expect(prr.spec?.resources?.["configmap.yaml"]).toContain("env: dev");
    const after = await current(h.cluster, PackageRevisionKind, pr);
    expect(condition(after, "Rendered")).toMatchObject({ status: "True", reason: "Rendered" });
    expect(after.status?.observedPrrResourceVersion).toBe(prr.metadata?.resourceVersion);
    expect((await store.getPackageContent(key)).files["configmap.yaml"]).toContain("env: dev");
  });

  it("gives the slot back when the reconcile fails", async () => {
    const { pr, store } = await draftRevision(h, files);
    h.cluster.failNext(
      "apply",
      "PackageRevisionResources",
      new ApiError(500, "InternalError", "etcd is down"),
    );

    await expect(runRender(h.ctx, pr, store)).rejects.toThrow("etcd is down");

    expect(takenDuringRun).toEqual([1]);
    expect(h.slots.taken).toBe(0);
    // The next render finds the slot free.
    const again = await current(h.cluster, PackageRevisionKind, pr);
    await expect(runRender(h.ctx, again, store)).resolves.toBeUndefined();
    expect(h.slots.taken).toBe(0);
  });
});
