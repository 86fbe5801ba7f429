import { selectReconcilers } from "../../../lib/controller/reconcilers";

describe("selectReconcilers (PORCH_PEPR_RECONCILERS)", () => {
  const all = ["Repository", "PackageRevision", "PackageVariant", "PackageVariantSet"];

  it("runs every controller when unset, empty or *", () => {
    for (const value of [undefined, "", " ", "*", "packagevariants,*"]) {
      const selection = selectReconcilers(value);
      expect(selection.ok && [...selection.controllers]).toEqual(all);
    }
  });

  it("runs only the listed controllers, by Porch's reconciler names", () => {
    const selection = selectReconcilers(" packagevariantsets, packagevariants ");
    expect(selection).toEqual({
      ok: true,
      names: ["packagevariants", "packagevariantsets"],
      controllers: new Set(["PackageVariant", "PackageVariantSet"]),
    });
  });

  it("refuses an unknown name, naming it and the known ones", () => {
    expect(selectReconcilers("packagevariants,packagevariant,toString")).toEqual({
      ok: false,
      error:
        'PORCH_PEPR_RECONCILERS: unknown reconciler "packagevariant", "toString"; known: ' +
        "repositories, packagerevisions, packagevariants, packagevariantsets (or * for all)",
    });
  });
});
