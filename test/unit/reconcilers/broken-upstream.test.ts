import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { PackageRevision, PackageRevisionKind } from "../../../crd-types";
import { packageRevisionObjectName } from "../../../lib/packages/naming";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, draftRevision, NS } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

/**
 * A clone of an upstream whose Kptfile does not parse can never succeed: the source fails
 * with a condition naming the file, instead of a retry that only ever fails again.
 */
describe("cloning an upstream whose Kptfile does not parse", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("ends the source with Ready=False naming the Kptfile, not in an endless retry", async () => {
    const upstream = await draftRevision(
      h,
      { Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: [", "cm.yaml": configMap("a") },
      { packageName: "base", workspaceName: "v1" },
    );
    const name = packageRevisionObjectName("repo", "app", "v1");
    await h.cluster.create(PackageRevisionKind, {
      metadata: { name, namespace: NS },
      spec: {
        repository: "repo",
        packageName: "app",
        workspaceName: "v1",
        lifecycle: "Draft",
        source: { cloneFrom: { upstreamRef: { name: upstream.pr.metadata?.name ?? "" } } },
      },
    } as PackageRevision);

    await expect(reconcilePackageRevision(`${NS}/${name}`, h.ctx)).resolves.toBeUndefined();

    const pr = await current(h.cluster, PackageRevisionKind, { metadata: { name, namespace: NS } });
    const ready = pr.status?.conditions?.find(c => c.type === "Ready");
    expect(ready).toMatchObject({ status: "False" });
    expect(ready?.message).toContain("Kptfile does not parse");
    expect(pr.status?.creationSource).toBeUndefined();
  });
});
