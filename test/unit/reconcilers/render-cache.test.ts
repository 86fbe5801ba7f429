import { runRender } from "../../../capabilities/package-revision/reconcile";
import { PackageRevisionKind, PackageRevisionResourcesKind } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, draftRevision, labellingKptfile } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const files = { Kptfile: labellingKptfile("app"), "configmap.yaml": configMap("app") };

/**
 * A revision is reconciled on every event of its own (status writes included), and each
 * reconcile used to read its PackageRevisionResources, files and all, to learn that nothing
 * changed. The watch's version of it answers that without a read.
 */
describe("runRender: the watched version of the files", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  async function rendered() {
    const d = await draftRevision(h, files);
    await runRender(h.ctx, d.pr, d.store);
    const pr = await current(h.cluster, PackageRevisionKind, d.pr);
    const prr = await current(h.cluster, PackageRevisionResourcesKind, d.pr);
    expect(pr.status?.observedPrrResourceVersion).toBe(prr.metadata?.resourceVersion);
    return { ...d, pr, prr };
  }

  it("reads nothing when the watch holds the version last rendered", async () => {
    const { pr, prr, store } = await rendered();
    h.ctx.caches.resources.upsert(structuredClone(prr));
    const calls = h.callsFrom();

    await expect(runRender(h.ctx, pr, store)).resolves.toBeUndefined();

    expect(calls()).toEqual([]);
  });

  it("reads and renders the files when the watch holds a newer version", async () => {
    const { pr, store } = await rendered();
    const edited = await h.cluster.patch(
      PackageRevisionResourcesKind,
      { namespace: pr.metadata?.namespace, name: pr.metadata?.name ?? "" },
      { merge: { spec: { resources: { ...files, "configmap.yaml": configMap("app", "2") } } } },
    );
    h.ctx.caches.resources.upsert(structuredClone(edited));

    await runRender(h.ctx, pr, store);

    const after = await current(h.cluster, PackageRevisionKind, pr);
    const prr = await current(h.cluster, PackageRevisionResourcesKind, pr);
    expect(after.status?.observedPrrResourceVersion).toBe(prr.metadata?.resourceVersion);
    expect(prr.spec?.resources?.["configmap.yaml"]).toContain('value: "2"');
  });

  it("asks the API when the watch has not delivered the files yet", async () => {
    const { pr, store } = await rendered();
    const calls = h.callsFrom();

    await runRender(h.ctx, pr, store);

    expect(calls()).toEqual([
      `get PackageRevisionResources ${pr.metadata?.namespace}/${pr.metadata?.name}`,
    ]);
  });
});
