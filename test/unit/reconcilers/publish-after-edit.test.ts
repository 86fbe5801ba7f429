import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { PackageRevisionKind, PackageRevisionResourcesKind } from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, draftRevision, labellingKptfile, NS, type Draft } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const files = { Kptfile: labellingKptfile("app"), "configmap.yaml": configMap("app", "1") };

/**
 * A user edits a proposal's files and publishes it right after, before the operator has
 * rendered the edit: the published revision must have the edit.
 */
describe("publishing a proposal whose last edit is not rendered yet", () => {
  let h: TestOperator;
  let d: Draft;
  let key: string;
  beforeEach(async () => {
    h = await testOperator({ renders: 1, requeueDelayMs: 1234 });
    d = await draftRevision(h, files);
    key = `${NS}/${d.pr.metadata?.name}`;
    await reconcilePackageRevision(key, h.ctx); // rendered
    await h.cluster.patch(PackageRevisionKind, refOf(d.pr), {
      merge: { spec: { lifecycle: "Proposed" } },
    });
    await reconcilePackageRevision(key, h.ctx); // proposed in git
    expect((await d.store.getPackageContent(d.key)).info.lifecycle).toBe("Proposed");

    await h.cluster.patch(PackageRevisionResourcesKind, refOf(d.pr), {
      merge: { spec: { resources: { "configmap.yaml": configMap("app", "2") } } },
    });
    await h.cluster.patch(PackageRevisionKind, refOf(d.pr), {
      merge: { spec: { lifecycle: "Published" } },
    });
  });
  afterEach(() => h.close());

  async function expectPublishedWithTheEdit() {
    const published = await d.store.getPackageContent(d.key);
    expect(published.info).toMatchObject({ lifecycle: "Published", revision: 1 });
    const prr = await current(h.cluster, PackageRevisionResourcesKind, d.pr);
    expect(published.files).toEqual(prr.spec?.resources);
    expect(published.files["configmap.yaml"]).toContain('value: "2"');
    expect(published.files["configmap.yaml"]).toContain("env: dev");
    const pr = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(pr.status?.revision).toBe(1);
    expect(pr.status?.observedPrrResourceVersion).toBe(prr.metadata?.resourceVersion);
  }

  it("renders and commits the edit before publishing", async () => {
    await expect(reconcilePackageRevision(key, h.ctx)).resolves.toBeUndefined();

    await expectPublishedWithTheEdit();
  });

  it("waits for a render slot before publishing", async () => {
    h.slots.take("elsewhere");

    await expect(reconcilePackageRevision(key, h.ctx)).resolves.toEqual({
      requeueAfterMs: 1234,
    });
    expect((await d.store.getPackageContent(d.key)).info.lifecycle).toBe("Proposed");

    h.slots.release("elsewhere");
    await expect(reconcilePackageRevision(key, h.ctx)).resolves.toBeUndefined();
    await expectPublishedWithTheEdit();
  });

  it("leaves a published revision alone", async () => {
    await reconcilePackageRevision(key, h.ctx);
    const calls = h.callsFrom();

    await reconcilePackageRevision(key, h.ctx);

    expect(calls().filter(c => !c.startsWith("get ") && !c.startsWith("list "))).toEqual([]);
  });
});

describe("a revision git has published before its status says so", () => {
  let h: TestOperator;
  afterEach(() => h.close());

  it("is not rendered (as the mirror creates one: object first, status after)", async () => {
    h = await testOperator();
    const d = await draftRevision(h, files);
    await d.store.updateLifecycle(d.key, "Proposed");
    await d.store.updateLifecycle(d.key, "Published");
    await h.cluster.patch(PackageRevisionKind, refOf(d.pr), {
      merge: { spec: { lifecycle: "Published" } },
    });
    const calls = h.callsFrom();

    await expect(
      reconcilePackageRevision(`${NS}/${d.pr.metadata?.name}`, h.ctx),
    ).resolves.toBeUndefined();

    expect(
      calls().filter(c => c.includes("PackageRevisionResources") && !c.startsWith("get ")),
    ).toEqual([]);
    const pr = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(pr.status?.revision).toBe(1);
    expect(pr.status?.observedPrrResourceVersion).toBeUndefined();
  });
});
