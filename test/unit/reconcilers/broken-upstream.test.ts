import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { PackageRevisionKind } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { cloneOfUpstream, configMap, current, NS } from "./fixtures";

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
    const { metadata } = await cloneOfUpstream(h, {
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: [",
      "cm.yaml": configMap("a"),
    });
    const name = metadata?.name ?? "";

    await expect(reconcilePackageRevision(`${NS}/${name}`, h.ctx)).resolves.toBeUndefined();

    const pr = await current(h.cluster, PackageRevisionKind, { metadata: { name, namespace: NS } });
    const ready = pr.status?.conditions?.find(c => c.type === "Ready");
    expect(ready).toMatchObject({ status: "False" });
    expect(ready?.message).toContain("Kptfile does not parse");
    expect(pr.status?.creationSource).toBeUndefined();
  });
});
