import { writeVariantStatus } from "../../../capabilities/package-variant/status";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
  PackageVariant,
  PackageVariantKind,
} from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { NS } from "./fixtures";

/**
 * A variant's status copies each downstream's render status from its PackageRevisionResources.
 * A revision not rendered yet has none to copy: its (large) files object is not read for it,
 * on each of the reconciles its creation brings.
 */
describe("writeVariantStatus: render status reads", () => {
  let h: TestOperator;
  let pv: PackageVariant;
  const name = "edge.app.v1";
  const outcome = { errors: [], pending: [], targets: [name] };

  beforeEach(async () => {
    h = await testOperator();
    pv = (await h.cluster.create(PackageVariantKind, {
      metadata: { name: "pv", namespace: NS },
      spec: {
        upstream: { repo: "b", package: "app" },
        downstream: { repo: "edge", package: "app" },
      },
    } as PackageVariant))!;
    await h.cluster.create(PackageRevisionResourcesKind, {
      metadata: { name, namespace: NS },
      spec: { repository: "edge", packageName: "app", workspaceName: "v1", resources: {} },
    } as PackageRevisionResources);
  });
  afterEach(() => h.close());

  const revision = (observed?: string): PackageRevision => ({
    metadata: { name, namespace: NS, uid: "r1", resourceVersion: "1" },
    spec: { repository: "edge", packageName: "app", workspaceName: "v1", lifecycle: "Draft" },
    ...(observed && { status: { observedPrrResourceVersion: observed } }),
  });

  const prrReads = (calls: string[]) =>
    calls.filter(c => c.startsWith("get PackageRevisionResources"));

  it("reads no files for a revision not rendered yet", async () => {
    h.ctx.caches.revisions.cache.upsert(revision());
    const calls = h.callsFrom();

    await writeVariantStatus(h.ctx, pv, outcome);

    expect(prrReads(calls())).toEqual([]);
    const after = await h.cluster.get(PackageVariantKind, { namespace: NS, name: "pv" });
    expect(after?.status?.downstreamTargets).toEqual([{ name }]);
  });

  it("reads the render status of a rendered revision once", async () => {
    const prr = await h.cluster.patch(
      PackageRevisionResourcesKind,
      { namespace: NS, name },
      { merge: { status: { renderStatus: { result: { items: [] } } } } },
      { status: true },
    );
    h.ctx.caches.revisions.cache.upsert(revision(prr.metadata?.resourceVersion));
    const calls = h.callsFrom();

    await writeVariantStatus(h.ctx, pv, outcome);
    await writeVariantStatus(h.ctx, pv, outcome);

    expect(prrReads(calls())).toHaveLength(1);
    const after = await h.cluster.get(PackageVariantKind, { namespace: NS, name: "pv" });
    expect(after?.status?.downstreamTargets).toEqual([
      { name, renderStatus: { result: { items: [] } } },
    ]);
  });
});
