// A change the plan makes before its steps (here: restoring a DeletionProposed downstream to
// Published) that the API server refuses is said in the PackageVariant's status before the
// retry: the reconcile used to throw past the status write, so Ready kept its old word.
import { reconcilePackageVariant } from "../../../capabilities/package-variant/reconcile";
import { PackageRevision, PackageVariant, PackageVariantKind } from "../../../crd-types";
import { ApiError } from "../../../lib/cluster/errors";
import { PACKAGE_VARIANT_FINALIZER } from "../../../lib/package-variant/ownership";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, NS, seed, seedWatchedRevision } from "./fixtures";

const revision = (name: string, repository: string, lifecycle: string, extra = {}) =>
  ({
    metadata: { name, namespace: NS, ...extra },
    spec: { repository, packageName: "basens", workspaceName: "v1", lifecycle },
    status: { revision: 1 },
  }) as PackageRevision;

describe("a change of the plan that fails", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("is Ready=False naming the revision and the error, and is retried", async () => {
    const pv = await seed(h.cluster, PackageVariantKind, {
      metadata: { name: "pv", namespace: NS, finalizers: [PACKAGE_VARIANT_FINALIZER] },
      spec: {
        upstream: { repo: "blueprints", package: "basens", revision: "1" },
        downstream: { repo: "deployments", package: "basens" },
      },
    } as PackageVariant);
    const owner = {
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "PackageVariant",
      name: "pv",
      uid: pv.metadata?.uid ?? "",
      controller: true,
    };
    for (const pr of [
      revision("blueprints.basens.v1", "blueprints", "Published"),
      revision("deployments.basens.v1", "deployments", "DeletionProposed", {
        ownerReferences: [owner],
      }),
    ])
      await seedWatchedRevision(h, pr);
    h.cluster.failNext("patch", "PackageRevision", new ApiError(500, "InternalError", "etcd"));

    await expect(reconcilePackageVariant(`${NS}/pv`, h.ctx)).rejects.toThrow("etcd");

    const ready = (await current(h.cluster, PackageVariantKind, pv)).status?.conditions?.find(
      c => c.type === "Ready",
    );
    expect(ready).toMatchObject({ status: "False", reason: "Error" });
    expect(ready?.message).toBe(
      'update of PackageRevision "deployments.basens.v1" (restore) failed: etcd',
    );
  });
});
