import {
  reconcilePackageRevision,
  runRender,
} from "../../../capabilities/package-revision/reconcile";
import { PackageRevisionKind, PackageRevisionResourcesKind } from "../../../crd-types";
import { createFunctionRuntime, type FunctionRuntime } from "../../../lib/fn";
import { failedRun } from "../../../lib/fn/pod";
import { findCondition } from "../../../lib/kubernetes/conditions";
import { testOperator, type TestOperator } from "../../support/operator-context";
import {
  cloneOfUpstream,
  configMap,
  current,
  draftRevision,
  labellingKptfile,
  NS,
  type Draft,
} from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const files = { Kptfile: labellingKptfile("app"), "configmap.yaml": configMap("app") };
const FULL =
  "20 function Pods run already, none of them idle, and at most 20 may (PORCH_PEPR_FN_MAX_PODS)";

/**
 * The real runtime, in front of which the operator's function Pods are all busy while `busy`
 * is set: each run fails TooManyPods as the Pod pool fails it (lib/fn/pod/reply.ts).
 */
interface PodCapacity {
  runtime: FunctionRuntime;
  busy: boolean;
  runs: number;
}

function podCapacity(): PodCapacity {
  const real = createFunctionRuntime();
  const state: PodCapacity = {
    busy: true,
    runs: 0,
    runtime: {
      describe: () => real.describe(),
      resolve: fn => {
        const runner = real.resolve(fn);
        return {
          runtime: runner.runtime,
          run: async request => {
            state.runs += 1;
            return state.busy
              ? failedRun(fn.image ?? "", "TooManyPods", FULL)
              : runner.run(request);
          },
        };
      },
    } as FunctionRuntime,
  };
  return state;
}

/**
 * A render that failed because shared capacity was busy is rendered again on its own, with
 * backoff, and renders once capacity frees (capabilities/package-revision/render.ts). The test
 * context's jitter is fixed at the middle: retry n waits three quarters of 5 s · 2^(n-1).
 */
describe("runRender after a capacity failure", () => {
  let h: TestOperator;
  let pods: PodCapacity;
  beforeEach(async () => {
    pods = podCapacity();
    h = await testOperator({ runtime: pods.runtime });
  });
  afterEach(() => h.close());

  /** The revision as the next reconcile reads it, its files' version in the watch cache. */
  const settled = async (d: Draft) => {
    h.ctx.caches.resources.upsert(
      structuredClone(await current(h.cluster, PackageRevisionResourcesKind, d.pr)),
    );
    return current(h.cluster, PackageRevisionKind, d.pr);
  };
  const rendered = async (d: Draft) =>
    findCondition(
      (await current(h.cluster, PackageRevisionKind, d.pr)).status?.conditions,
      "Rendered",
    );

  it("keeps the reason, says when it retries, backs off, and renders once capacity frees", async () => {
    const d = await draftRevision(h, files);
    expect(await runRender(h.ctx, d.pr, d.store)).toEqual({ requeueAfterMs: 3750 });
    const failed = await rendered(d);
    expect(failed).toMatchObject({ status: "False", reason: "TooManyPods" });
    expect(failed?.message).toContain(FULL);
    expect(failed?.message).toContain(
      "render retry 1 at 2025-01-15T10:00:03.750Z (in 4 s), or sooner when the files change",
    );

    // Looked at again before it is due (another event): no render, come back when due.
    h.clock.advance(1000);
    const early = await settled(d);
    const calls = h.callsFrom();
    expect(await runRender(h.ctx, early, d.store)).toEqual({ requeueAfterMs: 2750 });
    expect(calls()).toEqual([]);
    expect(pods.runs).toBe(1);

    // Due, still busy: the same files are rendered again, and the wait doubles.
    h.clock.advance(2750);
    expect(await runRender(h.ctx, await settled(d), d.store)).toEqual({ requeueAfterMs: 7500 });
    expect(pods.runs).toBe(2);
    expect((await rendered(d))?.message).toContain("render retry 2 at 2025-01-15T10:00:11.250Z");

    // Capacity frees: the next retry renders, and nothing is left to retry.
    pods.busy = false;
    h.clock.advance(7500);
    expect(await runRender(h.ctx, await settled(d), d.store)).toBeUndefined();
    expect(await rendered(d)).toMatchObject({ status: "True", reason: "Rendered" });
    const prr = await current(h.cluster, PackageRevisionResourcesKind, d.pr);
    expect(prr.spec?.resources?.["configmap.yaml"]).toContain("env: dev");
    expect(h.ctx.render.capacityRetries.size).toBe(0);
    const done = await settled(d);
    const quiet = h.callsFrom();
    expect(await runRender(h.ctx, done, d.store)).toBeUndefined();
    expect(quiet()).toEqual([]);
  });

  it("starts the backoff over when the files change", async () => {
    const d = await draftRevision(h, files);
    await runRender(h.ctx, d.pr, d.store);
    h.clock.advance(3750);
    expect(await runRender(h.ctx, await settled(d), d.store)).toEqual({ requeueAfterMs: 7500 });
    await h.cluster.patch(
      PackageRevisionResourcesKind,
      { namespace: NS, name: d.pr.metadata?.name ?? "" },
      { merge: { spec: { resources: { "extra.yaml": configMap("extra") } } } },
    );
    expect(await runRender(h.ctx, await settled(d), d.store)).toEqual({ requeueAfterMs: 3750 });
    expect((await rendered(d))?.message).toContain("render retry 1 at");
  });

  it("renders once at the first look after a restart, then backs off again", async () => {
    const d = await draftRevision(h, files);
    await runRender(h.ctx, d.pr, d.store);
    h.ctx.render.capacityRetries.forget(`${NS}/${d.pr.metadata?.name}`);
    expect(await runRender(h.ctx, await settled(d), d.store)).toEqual({ requeueAfterMs: 3750 });
    expect(pods.runs).toBe(2);
  });

  it("does not retry a render that failed for anything else", async () => {
    pods.busy = false;
    const d = await draftRevision(h, {
      ...files,
      Kptfile: labellingKptfile("app").replace("env: dev", "- not a map"),
    });
    expect(await runRender(h.ctx, d.pr, d.store)).toBeUndefined();
    expect((await rendered(d))?.status).toBe("False");
    expect(h.ctx.render.capacityRetries.size).toBe(0);
  });

  it("comes back to a new draft whose source render failed for capacity", async () => {
    const pr = await cloneOfUpstream(h, files);
    const key = `${NS}/${pr.metadata?.name}`;
    expect(await reconcilePackageRevision(key, h.ctx)).toEqual({ requeueAfterMs: 3750 });
    const made = await current(h.cluster, PackageRevisionKind, pr);
    expect(findCondition(made.status?.conditions, "Rendered")).toMatchObject({
      status: "False",
      reason: "TooManyPods",
    });
  });
});
