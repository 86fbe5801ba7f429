import { reconcilePackageVariant } from "../../../capabilities/package-variant/reconcile";
import { PackageRevisionKind, PackageVariant, PackageVariantKind } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, NS, publishedRevision, seed } from "./fixtures";

/**
 * A reconcile reads the object it reconciles from the watch's cache, not from the API server,
 * and a reconcile that runs again before the watch delivers its own write sees that write: it
 * does not write the same status twice from an older copy.
 */
describe("a reconcile reads its object from the watch's cache", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  /** A PackageVariant as the watch delivered it; the watch delivers nothing more in the test. */
  async function watchedVariant(
    upstream: { repo: string; package: string; revision?: string } = {
      repo: "blueprints",
      package: "app",
      revision: "1",
    },
  ): Promise<PackageVariant> {
    const pv = await seed(h.cluster, PackageVariantKind, {
      metadata: { name: "pv", namespace: NS },
      spec: { upstream, downstream: { repo: "edge", package: "app" } },
    } as PackageVariant);
    h.ctx.caches.variants.upsert(JSON.parse(JSON.stringify(pv)) as PackageVariant);
    return pv;
  }

  it("reads no PackageVariant from the API, and finds its own status write there next time", async () => {
    const pv = await watchedVariant();
    const calls = h.callsFrom();

    await reconcilePackageVariant(`${NS}/pv`, h.ctx);
    const written = calls().filter(c => c.startsWith("patch PackageVariant"));
    expect(written).toEqual(["patch PackageVariant ns/pv", "patch PackageVariant ns/pv (status)"]);

    await reconcilePackageVariant(`${NS}/pv`, h.ctx);

    const all = calls();
    expect(all.filter(c => c.startsWith("get PackageVariant "))).toEqual([]);
    expect(all.filter(c => c.startsWith("patch PackageVariant"))).toEqual(written);
    const status = (await current(h.cluster, PackageVariantKind, pv)).status;
    expect(status?.conditions?.map(c => c.type)).toEqual(["Ready", "Stalled"]);
    // The context's clock, not the wall clock's.
    expect(status?.conditions?.[0]?.lastTransitionTime).toBe(h.clock.now().toISOString());
  });

  it("a finalizer written from an older copy fails with Conflict instead of dropping another's", async () => {
    const pv = await watchedVariant({ repo: "blueprints", package: "app" });
    // Another writer adds its finalizer; the watch has not delivered that yet.
    await h.cluster.patch(
      PackageVariantKind,
      { namespace: NS, name: "pv" },
      {
        merge: { metadata: { finalizers: ["example.com/keep"] } },
      },
    );

    await expect(reconcilePackageVariant(`${NS}/pv`, h.ctx)).rejects.toMatchObject({ status: 409 });
    expect((await current(h.cluster, PackageVariantKind, pv)).metadata?.finalizers).toEqual([
      "example.com/keep",
    ]);

    // The watch catches up; the retry keeps both.
    h.ctx.caches.variants.upsert(await current(h.cluster, PackageVariantKind, pv));
    await reconcilePackageVariant(`${NS}/pv`, h.ctx);
    expect((await current(h.cluster, PackageVariantKind, pv)).metadata?.finalizers).toEqual([
      "example.com/keep",
      "config.porch.kpt.dev/packagevariants",
    ]);
  });

  it("a reconcile that runs again before the watch delivers its new draft does not create it again", async () => {
    await seed(h.cluster, PackageRevisionKind, publishedRevision("blueprints", "app"));
    await watchedVariant();
    const calls = h.callsFrom();

    await reconcilePackageVariant(`${NS}/pv`, h.ctx);
    await reconcilePackageVariant(`${NS}/pv`, h.ctx);

    // Announced once, even by a reconcile that finds its create answered AlreadyExists.
    expect(h.cluster.events.map(e => e.reason)).toEqual(["CloneDraftCreated"]);
    expect(calls().filter(c => c.startsWith("create PackageRevision"))).toHaveLength(1);
    const drafts = await h.cluster.list(PackageRevisionKind, { namespace: NS });
    expect(drafts.map(d => d.spec?.repository).sort()).toEqual(["blueprints", "edge"]);
  });
});
