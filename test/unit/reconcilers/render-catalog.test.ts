import { runRender } from "../../../capabilities/package-revision/reconcile";
import { PackageRevisionKind, PackageRevisionResourcesKind } from "../../../crd-types";
import { findCondition } from "../../../lib/kubernetes/conditions";
import { newHolder } from "../../support/function-catalog";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, draftRevision, kptfile } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const IMAGE = "example.com/fns/labeller:v1.2.0";
const files = {
  Kptfile: kptfile(
    "app",
    `pipeline:\n  mutators:\n    - image: ${IMAGE}\n      configMap:\n        team: a\n`,
  ),
  "configmap.yaml": configMap("app"),
};
const MAPPED = `functions:\n  - {image: "example.com/fns/labeller:v1.*", runtime: builtin, builtin: set-labels}\n`;

/**
 * A render that failed because the catalog had no runtime for a function is rendered again
 * when the catalog changes, without an edit (capabilities/package-revision/render.ts).
 */
describe("runRender under a changing function catalog", () => {
  let h: TestOperator;
  const catalog = newHolder();
  beforeEach(async () => (h = await testOperator({ catalog })));
  afterEach(() => h.close());

  it("fails for want of a runtime, waits, and renders once the catalog maps the image", async () => {
    const d = await draftRevision(h, files);
    await runRender(h.ctx, d.pr, d.store);
    let pr = await current(h.cluster, PackageRevisionKind, d.pr);
    const failed = findCondition(pr.status?.conditions, "Rendered");
    expect(failed).toMatchObject({ status: "False", reason: "FunctionUnavailable" });
    expect(failed?.message).toContain(`no runtime can run function image "${IMAGE}"`);

    // Nothing changed: no render, not even a read of the files.
    h.ctx.caches.resources.upsert(
      structuredClone(await current(h.cluster, PackageRevisionResourcesKind, d.pr)),
    );
    const calls = h.callsFrom();
    await runRender(h.ctx, pr, d.store);
    expect(calls()).toEqual([]);

    // The administrator maps the image to a built-in: the same files render.
    expect(catalog.update({ "catalog.yaml": MAPPED }).kind).toBe("loaded");
    await runRender(h.ctx, pr, d.store);
    pr = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(findCondition(pr.status?.conditions, "Rendered")).toMatchObject({
      status: "True",
      reason: "Rendered",
    });
    const prr = await current(h.cluster, PackageRevisionResourcesKind, d.pr);
    expect(prr.spec?.resources?.["configmap.yaml"]).toContain("team: a");
    expect(prr.status?.renderStatus?.result?.items).toEqual([
      expect.objectContaining({ image: IMAGE, runtime: "builtin", exitCode: 0 }),
    ]);
    expect(typeof prr.status?.renderStatus?.result?.items?.[0].durationMs).toBe("number");
    expect(h.ctx.render.catalogFailures.size).toBe(0);
  });

  it("stops a render at a function's bound, does not retry it, and renders once the catalog raises it", async () => {
    const bounded = (maxInputBytes: number) =>
      `functions:\n  - {image: "example.com/fns/labeller:v1.*", runtime: builtin, builtin: set-labels, limits: {maxInputBytes: ${maxInputBytes}}}\n`;
    expect(catalog.update({ "catalog.yaml": bounded(1024) }).kind).toBe("loaded");
    const big = { ...files, "big.yaml": configMap("big", "x".repeat(2000)) };
    const d = await draftRevision(h, big);
    await runRender(h.ctx, d.pr, d.store);
    let pr = await current(h.cluster, PackageRevisionKind, d.pr);
    const failed = findCondition(pr.status?.conditions, "Rendered");
    expect(failed).toMatchObject({ status: "False", reason: "FunctionInputLimit" });
    expect(failed?.message).toMatch(
      new RegExp(
        `\\(${IMAGE.replace(/\./g, "\\.")}, runtime builtin\\): its input ResourceList is \\d+ bytes, more than maxInputBytes 1024$`,
      ),
    );

    // Nothing changed: not rendered again.
    h.ctx.caches.resources.upsert(
      structuredClone(await current(h.cluster, PackageRevisionResourcesKind, d.pr)),
    );
    const calls = h.callsFrom();
    await runRender(h.ctx, pr, d.store);
    expect(calls()).toEqual([]);

    // A catalog with a higher bound renders the same files.
    expect(catalog.update({ "catalog.yaml": bounded(1048576) }).kind).toBe("loaded");
    await runRender(h.ctx, pr, d.store);
    pr = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(findCondition(pr.status?.conditions, "Rendered")).toMatchObject({ status: "True" });
  });

  it("renders a failed revision once after a restart, in case the catalog changed meanwhile", async () => {
    catalog.update(undefined);
    const d = await draftRevision(h, files);
    const name = d.pr.metadata?.name;
    const settled = async () => {
      h.ctx.caches.resources.upsert(
        structuredClone(await current(h.cluster, PackageRevisionResourcesKind, d.pr)),
      );
      return current(h.cluster, PackageRevisionKind, d.pr);
    };
    await runRender(h.ctx, d.pr, d.store);
    const failed = await settled();
    // A new process remembers no failures: it renders the same files once.
    h.ctx.render.catalogFailures.clear();
    const calls = h.callsFrom();
    await runRender(h.ctx, failed, d.store);
    expect(calls()).toContain(`apply PackageRevision ns/${name} (status)`);
    // Failed again under the same catalog: remembered, not retried.
    const again = await settled();
    const quiet = h.callsFrom();
    await runRender(h.ctx, again, d.store);
    expect(quiet()).toEqual([]);
  });
});
