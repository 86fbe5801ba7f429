import { reconcilePackageVariant } from "../../../capabilities/package-variant/reconcile";
import { reconcilePackageVariantSet } from "../../../capabilities/package-variant-set/reconcile";
import { SET_LABEL } from "../../../capabilities/package-variant-set/variants";
import {
  PackageRevision,
  PackageRevisionKind,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
  PackageVariant,
  PackageVariantKind,
  PackageVariantSetKind,
  RepositoryKind,
} from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { ApiError } from "../../../lib/cluster/errors";
import { PACKAGE_VARIANT_FINALIZER } from "../../../lib/package-variant/ownership";
import {
  basensUpstream as upstream,
  conditionsOf,
  current,
  kptfile,
  NS,
  publishedBasens,
  repositoryObject,
  seed,
  seedSet,
  seedWatchedRevision,
} from "./fixtures";

const MISSING = "could not find upstream package revision 'basens/1' in repo 'blueprints'";

describe("a missing upstream", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("stalls a PackageVariantSet with UpstreamNotFound and makes no PackageVariant", async () => {
    const set = await seedSet(h, {
      upstream,
      targets: [{ repositories: [{ name: "deployments" }] }],
    });

    await expect(reconcilePackageVariantSet(`${NS}/set`, h.ctx)).resolves.toBeUndefined();

    const after = await current(h.cluster, PackageVariantSetKind, set);
    expect(conditionsOf(after)).toEqual({
      Stalled: expect.objectContaining({
        status: "True",
        reason: "UpstreamNotFound",
        message: MISSING,
      }),
      Ready: expect.objectContaining({ status: "False", reason: "UpstreamNotFound" }),
    });
    expect(await h.cluster.list(PackageVariantKind, { namespace: NS })).toEqual([]);
    expect(h.cluster.events).toEqual([]);

    // Once the watch delivers the published upstream, the set makes its PackageVariant (in a
    // downstream Repository that exists: the set checks, git is not read).
    await seed(
      h.cluster,
      RepositoryKind,
      repositoryObject("deployments", "https://git.example.com/deployments.git"),
    );
    await seedWatchedRevision(h, publishedBasens);
    await reconcilePackageVariantSet(`${NS}/set`, h.ctx);

    const made = await h.cluster.list(PackageVariantKind, { namespace: NS });
    expect(made).toHaveLength(1);
    expect(made[0].metadata?.labels?.[SET_LABEL]).toBe(set.metadata?.uid);
    expect(made[0].spec).toMatchObject({
      upstream,
      downstream: { repo: "deployments", package: "basens" },
    });
    expect(conditionsOf(await current(h.cluster, PackageVariantSetKind, set))).toMatchObject({
      Stalled: { status: "False", reason: "Valid" },
    });
  });

  it("stalls a PackageVariant with ValidationError and creates no draft", async () => {
    const pv = await seed(h.cluster, PackageVariantKind, {
      metadata: { name: "pv", namespace: NS },
      spec: { upstream, downstream: { repo: "deployments", package: "basens" } },
    } as PackageVariant);

    await expect(reconcilePackageVariant(`${NS}/pv`, h.ctx)).resolves.toBeUndefined();

    const after = await current(h.cluster, PackageVariantKind, pv);
    expect(conditionsOf(after)).toEqual({
      Stalled: expect.objectContaining({
        status: "True",
        reason: "ValidationError",
        message: MISSING,
      }),
      Ready: expect.objectContaining({
        status: "False",
        reason: "Error",
        message: "invalid packagevariant object",
      }),
    });
    expect(await h.cluster.list(PackageRevisionKind, { namespace: NS })).toEqual([]);
  });

  it("keeps naming the downstream revisions it managed while it is stalled", async () => {
    const pv = await seed(h.cluster, PackageVariantKind, {
      metadata: { name: "pv", namespace: NS },
      spec: { upstream, downstream: { repo: "deployments", package: "basens" } },
      status: { downstreamTargets: [{ name: "deployments.basens.packagevariant-1" }] },
    } as PackageVariant);

    await reconcilePackageVariant(`${NS}/pv`, h.ctx);

    const after = await current(h.cluster, PackageVariantKind, pv);
    expect(conditionsOf(after).Stalled).toMatchObject({ status: "True", message: MISSING });
    expect(after.status?.downstreamTargets).toEqual([
      { name: "deployments.basens.packagevariant-1" },
    ]);
  });
});

// A downstream whose Kptfile has no upstreamLock: the reference counts it as up to date and only
// logs it; here Ready says so, while the downstream stays the target and is still mutated.
describe("a downstream without an upstream lock", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  async function unlockedDownstream(): Promise<PackageVariant> {
    const pv = await seed(h.cluster, PackageVariantKind, {
      metadata: { name: "pv", namespace: NS, finalizers: [PACKAGE_VARIANT_FINALIZER] },
      spec: { upstream, downstream: { repo: "deployments", package: "basens" } },
    } as PackageVariant);
    const downstream: PackageRevision = {
      metadata: {
        name: "deployments.basens.v1",
        namespace: NS,
        ownerReferences: [
          {
            apiVersion: "config.porch.kpt.dev/v1alpha1",
            kind: "PackageVariant",
            name: "pv",
            uid: pv.metadata?.uid ?? "",
            controller: true,
          },
        ],
      },
      spec: {
        repository: "deployments",
        packageName: "basens",
        workspaceName: "v1",
        lifecycle: "Published",
      },
      status: { revision: 1 },
    };
    for (const pr of [publishedBasens, downstream]) await seedWatchedRevision(h, pr);
    await seed(h.cluster, PackageRevisionResourcesKind, {
      metadata: { name: "deployments.basens.v1", namespace: NS },
      spec: {
        repository: "deployments",
        packageName: "basens",
        workspaceName: "v1",
        resources: { Kptfile: kptfile("basens") },
      },
    } as PackageRevisionResources);
    return pv;
  }

  it("is Ready=False, reason UpstreamLockMissing, naming the downstream, which stays the target", async () => {
    const pv = await unlockedDownstream();
    await expect(reconcilePackageVariant(`${NS}/pv`, h.ctx)).resolves.toBeUndefined();

    const after = await current(h.cluster, PackageVariantKind, pv);
    expect(conditionsOf(after)).toEqual({
      Stalled: expect.objectContaining({ status: "False", reason: "Valid" }),
      Ready: expect.objectContaining({
        status: "False",
        reason: "UpstreamLockMissing",
        message:
          'downstream "deployments.basens.v1" has no status.upstreamLock.git.ref, so its upstream ' +
          "revision is unknown: it is not upgraded (its Kptfile needs upstream and upstreamLock)",
      }),
    });
    expect(after.status?.downstreamTargets).toEqual([{ name: "deployments.basens.v1" }]);
    // Nothing to change in its files: no edit draft.
    expect((await h.cluster.list(PackageRevisionKind, { namespace: NS })).length).toBe(2);
  });

  it("writes the status before a transient failure of a step is retried", async () => {
    const pv = await unlockedDownstream();
    h.cluster.failNext(
      "get",
      "PackageRevisionResources",
      new ApiError(500, "InternalError", "etcd"),
    );
    await expect(reconcilePackageVariant(`${NS}/pv`, h.ctx)).rejects.toMatchObject({ status: 500 });
    const after = await current(h.cluster, PackageVariantKind, pv);
    expect(conditionsOf(after).Ready).toMatchObject({ status: "False", reason: "Error" });
    expect(after.status?.downstreamTargets).toEqual([{ name: "deployments.basens.v1" }]);
  });
});
