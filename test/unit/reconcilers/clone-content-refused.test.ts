import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { PackageRevisionKind } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { cloneOfUpstream, current, kptfile, NS } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

/**
 * A clone of an upstream holding a file over the per-file limit (default 1 MiB) can never
 * succeed: the source fails with the limit's reason and a message naming the file and the
 * setting, once, instead of reading the file or retrying.
 */
describe("cloning an upstream whose content is over a limit", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("ends the source with Ready=False, reason ContentTooLarge, naming the file", async () => {
    const { metadata } = await cloneOfUpstream(h, {
      Kptfile: kptfile("base"),
      "data/big.yaml": "a".repeat(1024 * 1024 + 1),
    });
    const name = metadata?.name ?? "";

    await expect(reconcilePackageRevision(`${NS}/${name}`, h.ctx)).resolves.toBeUndefined();

    const pr = await current(h.cluster, PackageRevisionKind, { metadata: { name, namespace: NS } });
    expect(pr.status?.conditions?.find(c => c.type === "Ready")).toMatchObject({
      status: "False",
      reason: "ContentTooLarge",
      message:
        'create draft: file "data/big.yaml" is 1048577 bytes, over the per-file limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)',
    });
    expect(pr.status?.creationSource).toBeUndefined();
  });
});
