import { describeCatalog } from "../../../../lib/fn/catalog/catalog";
import { newHolder } from "../../../support/function-catalog";

const VALID =
  "functions:\n  - {exec: labeller, runtime: exec, executable: {path: /opt/labeller}}\n";
const OTHER = "functions:\n  - {exec: stamper, runtime: exec, executable: {path: /opt/stamper}}\n";
const INVALID = "functions:\n  - {exec: labeller, runtime: exec, executable: {path: relative}}\n";

describe("CatalogHolder", () => {
  it("starts with the built-in defaults", () => {
    const view = newHolder().current();
    expect(view.generation).toBe(0);
    expect(view.rejected).toBeUndefined();
    expect(describeCatalog(view.catalog)).toMatch(/^the built-in defaults \(/);
  });

  it("puts a valid catalog in use, and a new generation only when it changes", () => {
    const holder = newHolder();
    expect(holder.update({ "catalog.yaml": VALID }).kind).toBe("loaded");
    expect(holder.current().generation).toBe(1);
    // A relist of the same object, or a change of another key, changes nothing.
    expect(holder.update({ "catalog.yaml": VALID }).kind).toBe("unchanged");
    expect(holder.update({ "catalog.yaml": VALID, "notes.txt": "hi" }).kind).toBe("unchanged");
    expect(holder.current().generation).toBe(1);
    expect(holder.update({ "catalog.yaml": OTHER }).kind).toBe("loaded");
    expect(holder.current().generation).toBe(2);
  });

  it("keeps the last valid catalog when the new one is refused, and reports the refusal once", () => {
    const holder = newHolder();
    holder.update({ "catalog.yaml": VALID });
    const before = holder.current().catalog;
    const change = holder.update({ "catalog.yaml": INVALID });
    expect(change).toEqual({
      kind: "rejected",
      rejected: {
        origin: "ConfigMap pepr-system/porch-pepr-functions",
        problems: ['functions[0].executable.path: "relative" is not an absolute path'],
        entries: [
          {
            where: "functions[0]",
            match: { exec: "labeller" },
            problems: ['functions[0].executable.path: "relative" is not an absolute path'],
          },
        ],
      },
    });
    expect(holder.current().catalog).toBe(before);
    expect(holder.current().generation).toBe(1);
    expect(holder.current().rejected?.problems).toHaveLength(1);
    expect(holder.update({ "catalog.yaml": INVALID }).kind).toBe("unchanged");
    // Fixed: in use, the refusal forgotten.
    expect(holder.update({ "catalog.yaml": OTHER }).kind).toBe("loaded");
    expect(holder.current().rejected).toBeUndefined();
  });

  it("refuses a ConfigMap without the catalog key rather than read it as no functions", () => {
    const holder = newHolder();
    holder.update({ "catalog.yaml": VALID });
    const change = holder.update({ "catalog.yml": VALID });
    expect(change.kind === "rejected" && change.rejected.problems).toEqual([
      "has no key catalog.yaml",
    ]);
    expect(holder.current().catalog.entries[0].where).toBe("functions[0]");
  });

  it("goes back to the defaults when the ConfigMap is deleted", () => {
    const holder = newHolder();
    holder.update({ "catalog.yaml": VALID });
    holder.update({ "catalog.yaml": INVALID });
    expect(holder.update(undefined).kind).toBe("defaults");
    expect(holder.current().generation).toBe(2);
    expect(holder.current().rejected).toBeUndefined();
    expect(holder.current().catalog.entries.every(e => e.isDefault)).toBe(true);
    expect(holder.update(undefined).kind).toBe("unchanged");
  });
});
