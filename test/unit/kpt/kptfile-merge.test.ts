// Kptfile pipeline 3-way merge (kpt MergeKptfiles rules), including the PackageVariant case:
// a prepended function named `PackageVariant.pv1.ns.0` next to upstream functions.
import { clonePackage } from "../../../lib/kpt/clone";
import { upgradePackage } from "../../../lib/kpt/upgrade";
import { applyEdits, at, LOCK_V1, LOCK_V2 } from "./fixtures";
import { kptfileRows } from "./kptfile-scenarios";

describe("Kptfile pipeline merge", () => {
  it.each(kptfileRows.map(row => [row.name, row] as const))("%s", (_, row) => {
    const original = { Kptfile: row.base };
    const local = applyEdits(clonePackage(original, LOCK_V1, "mypkg"), row.local);
    const updated = applyEdits(original, row.upstream);
    const result = upgradePackage({ original, updated, local }, "resource-merge", LOCK_V2);
    expect(at(result.files, "Kptfile", "pipeline.mutators")).toEqual(row.mutators);
    expect(at(result.files, "Kptfile", "pipeline.validators")).toEqual(row.validators);
    expect(at(result.files, "Kptfile", "metadata.name")).toBe("mypkg");
    expect(result.conflicts.map(c => `${c.reason} ${c.field ?? ""}`.trim())).toEqual(row.conflicts);
  });
});
