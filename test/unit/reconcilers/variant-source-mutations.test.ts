import {
  PackageRevisionResources,
  PackageRevisionResourcesKind,
  PackageVariant,
  PackageVariantKind,
} from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, NS } from "./fixtures";
import { settleVariant, variantDraftName, variantScene } from "./scenes";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

/**
 * A variant's new draft carries its mutations from the source step, which says so to the
 * variant's check (capabilities/package-revision/variant-mutations.ts): the check does not read
 * the files it knows. It reads them, and mutates again, once a user edited them or the variant's
 * spec changed.
 */
describe("a draft mutated by its source", () => {
  let h: TestOperator;
  let pv: PackageVariant;
  const draft = { metadata: { name: variantDraftName, namespace: NS } };
  const prrReads = (calls: string[]) =>
    calls.filter(c => c === `get PackageRevisionResources ${NS}/${variantDraftName}`);

  beforeEach(async () => {
    h = await testOperator();
    ({ pv } = await variantScene(h, {
      deployments: { deployment: true },
      variant: { packageContext: { data: { region: "eu" } } },
    }));
  });
  afterEach(() => h.close());

  const contextOf = async () =>
    (await current(h.cluster, PackageRevisionResourcesKind, draft)).spec?.resources?.[
      "package-context.yaml"
    ] ?? "";

  it("is not read by the variant's check", async () => {
    const calls = h.callsFrom();
    await settleVariant(h);
    const reads = prrReads(calls());
    expect(await contextOf()).toContain("region: eu");
    expect(reads).toEqual([]);
  });

  it("is read and mutated again after a user's edit of its files", async () => {
    await settleVariant(h);
    const prr = await current(h.cluster, PackageRevisionResourcesKind, draft);
    const files = { ...prr.spec?.resources };
    files["package-context.yaml"] = files["package-context.yaml"].replace("region: eu", "");
    await h.cluster.apply(
      PackageRevisionResourcesKind,
      { metadata: draft.metadata, spec: { resources: files } } as PackageRevisionResources,
      "user",
    );
    const calls = h.callsFrom();
    await settleVariant(h);
    expect(prrReads(calls())).not.toEqual([]);
    expect(await contextOf()).toContain("region: eu");
  });

  it("is read and mutated again when the variant's spec changed", async () => {
    await settleVariant(h);
    await h.cluster.patch(PackageVariantKind, refOf(pv), {
      merge: { spec: { packageContext: { data: { region: "us" } } } },
    });
    const calls = h.callsFrom();
    await settleVariant(h);
    expect(prrReads(calls())).not.toEqual([]);
    expect(await contextOf()).toContain("region: us");
  });
});
