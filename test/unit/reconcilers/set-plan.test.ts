import { reconcilePackageVariantSet } from "../../../capabilities/package-variant-set/reconcile";
import { PackageVariantKind, PackageVariantSet, PackageVariantSetKind } from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, NS } from "./fixtures";
import { setScene } from "./scenes";

// The set's Plan mode through its reconciler, on the in-memory API server: what is held, what
// one approval applies, and what leaving Plan mode removes.
const planOf = (set: PackageVariantSet) => set.status?.plan;
const planCondition = (set: PackageVariantSet) =>
  set.status?.conditions?.find(c => c.type === "PlanApplied");

describe("a PackageVariantSet in Plan mode", () => {
  let h: TestOperator;
  let set: PackageVariantSet;
  const reconcile = () => reconcilePackageVariantSet(`${NS}/set`, h.ctx);
  const now = () => current<PackageVariantSet>(h.cluster, PackageVariantSetKind, set);
  const patchPlan = (plan: object) =>
    h.cluster.patch(PackageVariantSetKind, refOf(set), { merge: { spec: { plan } } });

  beforeEach(async () => {
    h = await testOperator();
    set = await setScene(h, {
      targets: [{ repositories: [{ name: "edge" }] }],
      plan: { mode: "Plan" },
    });
  });
  afterEach(() => h.close());

  it("creates nothing until the plan's id is approved, then applies it once", async () => {
    await reconcile();
    const held = await now();
    expect(await h.cluster.list(PackageVariantKind, { namespace: NS })).toEqual([]);
    expect(planOf(held)).toMatchObject({
      summary: "1 create",
      entries: [{ packageVariant: "set-edge-app", action: "create", toRevision: "1" }],
    });
    expect(planCondition(held)).toMatchObject({ status: "False", reason: "AwaitingApproval" });

    await patchPlan({ approvedPlan: "0123456789abcdef" });
    await reconcile();
    expect(planCondition(await now())?.reason).toBe("ApprovedPlanStale");
    expect(await h.cluster.list(PackageVariantKind, { namespace: NS })).toEqual([]);

    const id = planOf(held)!.id!;
    await patchPlan({ approvedPlan: id });
    await reconcile();
    const made = await h.cluster.list(PackageVariantKind, { namespace: NS });
    expect(made.map(pv => pv.metadata?.name)).toEqual(["set-edge-app"]);
    const applied = await now();
    expect(planOf(applied)?.appliedPlan).toBe(id);
    expect(planCondition(applied)).toMatchObject({ status: "True", reason: "Applied" });

    // Once the watch delivers the variant, the next reconcile finds nothing to write.
    h.ctx.caches.variants.upsert(made[0]);
    await reconcile();
    expect(planCondition(await now())).toMatchObject({ status: "True", reason: "Applied" });
    expect(planOf(await now())?.summary).toBe("no changes");
  });

  it("removes status.plan and its condition when the set goes back to Apply mode", async () => {
    await reconcile();
    expect(planOf(await now())).toBeDefined();
    await patchPlan({ mode: "Apply" });
    await reconcile();
    const after = await now();
    expect(planOf(after)).toBeUndefined();
    expect(planCondition(after)).toBeUndefined();
    expect(await h.cluster.list(PackageVariantKind, { namespace: NS })).toHaveLength(1);
  });
});
