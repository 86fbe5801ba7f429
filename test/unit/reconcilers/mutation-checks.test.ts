import { checkMutations } from "../../../capabilities/package-variant/mutate";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
  PackageVariant,
  PackageVariantKind,
} from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import type { CheckMutationsStep } from "../../../lib/package-variant";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, kptfile, NS } from "./fixtures";

/**
 * A PackageVariant reconciles on every change of its revisions; checking its mutations reads the
 * downstream's files (the largest object it touches). A check that found nothing to change is
 * not repeated while the files' version and the variant's generation stay what they were.
 */
describe("checkMutations: a check that found nothing is not read again", () => {
  let h: TestOperator;
  let pv: PackageVariant;
  let downstream: PackageRevision;
  let step: CheckMutationsStep;

  /** What the PackageRevisionResources watch delivers: the object without its files. */
  async function watched(): Promise<void> {
    const prr = await current(h.cluster, PackageRevisionResourcesKind, downstream);
    h.ctx.caches.resources.upsert({ ...prr, spec: {} } as PackageRevisionResources);
  }

  const prrReads = (calls: string[]) =>
    calls.filter(c => c.startsWith("get PackageRevisionResources"));

  beforeEach(async () => {
    h = await testOperator();
    pv = (await h.cluster.create(PackageVariantKind, {
      metadata: { name: "pv", namespace: NS },
      spec: {
        upstream: { repo: "blueprints", package: "app", revision: 1 },
        downstream: { repo: "edge", package: "app" },
      },
    } as PackageVariant))!;
    downstream = {
      metadata: { name: "edge.app.v1", namespace: NS },
      spec: { repository: "edge", packageName: "app", workspaceName: "v1", lifecycle: "Draft" },
    };
    await h.cluster.create(PackageRevisionResourcesKind, {
      metadata: { name: "edge.app.v1", namespace: NS },
      spec: { repository: "edge", packageName: "app", workspaceName: "v1", resources: {} },
    } as PackageRevisionResources);
    // The first check brings the files to what the variant asks; the second finds nothing.
    step = { state: "CHECK_MUTATIONS", kind: "checkMutations", downstream, target: "edge.app.v1" };
    await h.cluster.apply(
      PackageRevisionResourcesKind,
      {
        metadata: { name: "edge.app.v1", namespace: NS },
        spec: { resources: { Kptfile: kptfile("app"), "cm.yaml": configMap("a") } },
      } as PackageRevisionResources,
      "test",
    );
    await checkMutations(h.ctx, pv, step);
  });
  afterEach(() => h.close());

  it("reads the files once while their version and the variant's generation hold", async () => {
    await watched();
    const first = await checkMutations(h.ctx, pv, step);
    expect(first.decision.state).toBe("UP_TO_DATE");

    const calls = h.callsFrom();
    const second = await checkMutations(h.ctx, pv, step);

    expect(second.decision).toEqual(first.decision);
    expect(prrReads(calls())).toEqual([]);
  });

  it("reads them again after an edit of the files", async () => {
    await watched();
    await checkMutations(h.ctx, pv, step);
    await h.cluster.patch(PackageRevisionResourcesKind, refOf(downstream), {
      merge: { spec: { resources: { "extra.yaml": configMap("b") } } },
    });
    await watched();

    const calls = h.callsFrom();
    await checkMutations(h.ctx, pv, step);

    expect(prrReads(calls())).toHaveLength(1);
  });

  it("reads them again after the variant's spec changed", async () => {
    await watched();
    await checkMutations(h.ctx, pv, step);
    const changed = { ...pv, metadata: { ...pv.metadata, generation: 2 } };

    const calls = h.callsFrom();
    await checkMutations(h.ctx, changed, step);

    expect(prrReads(calls())).toHaveLength(1);
  });

  it("reads them when the watch has not delivered the files' version", async () => {
    await checkMutations(h.ctx, pv, step);

    const calls = h.callsFrom();
    await checkMutations(h.ctx, pv, step);

    expect(prrReads(calls())).toHaveLength(1);
  });
});
