import { runRender } from "../../../capabilities/package-revision/reconcile";
import { condition } from "../../../capabilities/package-revision/status";
import { PackageRevisionKind, PackageRevisionResourcesKind } from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { createFunctionRuntime, type FunctionRuntime, type RunRequest } from "../../../lib/fn";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, draftRevision, labellingKptfile } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const files = { Kptfile: labellingKptfile("app"), "configmap.yaml": configMap("app", "1") };
const edited = configMap("app", "2");

/**
 * A runtime whose functions first call `during` (a user's edit arriving mid-render) and then
 * run the built-in, or with `identity` hand their input back unchanged.
 */
function editingRuntime(during: () => Promise<void>, identity = false): FunctionRuntime {
  const builtins = createFunctionRuntime();
  const same = async ({ items }: RunRequest) => ({
    items: items.map((item, source) => ({ ...item, source })),
    results: [],
    exitCode: 0,
  });
  return {
    describe: builtins.describe,
    resolve: fn => {
      const runner = builtins.resolve(fn);
      return {
        runtime: runner.runtime,
        run: async request => {
          await during();
          return identity ? same(request) : runner.run(request);
        },
      };
    },
  };
}

describe("runRender: the files change while the render runs", () => {
  let h: TestOperator;
  let editOnce: (() => Promise<void>) | undefined;
  const during = async () => {
    const edit = editOnce;
    editOnce = undefined;
    await edit?.();
  };
  afterEach(() => h.close());

  async function setup(identity: boolean) {
    h = await testOperator({ runtime: editingRuntime(during, identity) });
    const draft = await draftRevision(h, files);
    editOnce = async () => {
      await h.cluster.patch(PackageRevisionResourcesKind, refOf(draft.pr), {
        merge: { spec: { resources: { "configmap.yaml": edited } } },
      });
    };
    return draft;
  }

  it.each([
    ["the rendered files", false],
    ["the render status (the render changed no file)", true],
  ])(
    "requeues at once without overwriting the newer edit when writing %s conflicts",
    async (_what, identity) => {
      const { pr, store, key } = await setup(identity);
      const before = await current(h.cluster, PackageRevisionResourcesKind, pr);
      const calls = h.callsFrom();

      await expect(runRender(h.ctx, pr, store)).resolves.toEqual({ requeueAfterMs: 0 });

      // The one write to the files was refused: of the files, or of the status only.
      const target = `PackageRevisionResources ${pr.metadata?.namespace}/${pr.metadata?.name}`;
      expect(calls().filter(c => c.startsWith("apply PackageRevisionResources"))).toEqual([
        identity ? `apply ${target} (status)` : `apply ${target}`,
      ]);

      const prr = await current(h.cluster, PackageRevisionResourcesKind, pr);
      expect(prr.spec?.resources).toEqual({ ...files, "configmap.yaml": edited });
      expect(prr.status).toBeUndefined();
      expect(h.cluster.managers(PackageRevisionResourcesKind, refOf(pr))).toEqual([]);
      // Nothing of the stale render reached git, and the newer version is still to be rendered.
      expect((await store.getPackageContent(key)).files).toEqual(files);
      const after = await current(h.cluster, PackageRevisionKind, pr);
      expect(after.status?.renderingPrrResourceVersion).toBe(before.metadata?.resourceVersion);
      expect(after.status?.observedPrrResourceVersion).toBeUndefined();
      expect(condition(after, "Rendered")).toBeUndefined();
      expect(h.slots.taken).toBe(0);
    },
  );

  it("renders the newer edit on the requeue", async () => {
    const { pr, store, key } = await setup(false);
    await expect(runRender(h.ctx, pr, store)).resolves.toEqual({ requeueAfterMs: 0 });

    const requeued = await current(h.cluster, PackageRevisionKind, pr);
    await expect(runRender(h.ctx, requeued, store)).resolves.toBeUndefined();

    const prr = await current(h.cluster, PackageRevisionResourcesKind, pr);
    const rendered = prr.spec?.resources?.["configmap.yaml"];
    expect(rendered).toContain("env: dev");
    expect(rendered).toContain('value: "2"');
    expect((await store.getPackageContent(key)).files["configmap.yaml"]).toBe(rendered);
    const after = await current(h.cluster, PackageRevisionKind, pr);
    expect(after.status?.observedPrrResourceVersion).toBe(prr.metadata?.resourceVersion);
    expect(condition(after, "Rendered")).toMatchObject({ status: "True" });
  });
});
