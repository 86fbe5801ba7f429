import { parse } from "yaml";
import { applyPackageContext, MutationError } from "../../../lib/package-variant";
import { KPTFILE, PACKAGE_CONTEXT } from "./fixtures";

const pkg = { Kptfile: KPTFILE, "package-context.yaml": PACKAGE_CONTEXT };
const dataOf = (files: Record<string, string>) => parse(files["package-context.yaml"]).data;

describe("applyPackageContext", () => {
  // Each row: the package context's data before, spec.packageContext, the data after.
  it.each([
    ["sets new keys", {}, { data: { region: "us-east1" } }, { region: "us-east1" }],
    ["overwrites a key", { region: "a" }, { data: { region: "b" } }, { region: "b" }],
    ["removes listed keys", { zone: "z" }, { removeKeys: ["zone"] }, {}],
    [
      "sets, then removes",
      { zone: "z" },
      { data: { a: "1", zone: "y" }, removeKeys: ["zone"] },
      { a: "1" },
    ],
    [
      "never touches the reserved keys",
      {},
      { data: { name: "other", "package-path": "x" }, removeKeys: ["name", "package-path"] },
      {},
    ],
    [
      "keeps look-alike strings strings",
      {},
      { data: { on: "true", n: "01" } },
      { on: "true", n: "01" },
    ],
  ])("%s", (_, before: Record<string, string>, context, after) => {
    const start = applyPackageContext(pkg, { data: before });
    const result = applyPackageContext(start, context) as Record<string, string>;
    expect(dataOf(result)).toEqual({ name: "nginx", ...after });
  });

  it("keeps keys added earlier that are no longer in data", () => {
    const first = applyPackageContext(pkg, { data: { region: "a" } });
    const second = applyPackageContext(first, { data: { tier: "gold" } });
    expect(dataOf(second as Record<string, string>)).toEqual({
      name: "nginx",
      region: "a",
      tier: "gold",
    });
  });

  it("keeps comments and is idempotent, returning the same text the second time", () => {
    const once = applyPackageContext(pkg, { data: { region: "a" }, removeKeys: ["gone"] });
    expect(once["package-context.yaml"]).toContain("name: nginx # set by Porch");
    expect(once["package-context.yaml"]).toContain("region: a");
    const twice = applyPackageContext(once, { data: { region: "a" }, removeKeys: ["gone"] });
    expect(twice).toBe(once);
  });

  it("leaves the package untouched (same object) when nothing changes", () => {
    expect(applyPackageContext(pkg, { data: { name: "x" } })).toBe(pkg);
    expect(applyPackageContext(pkg, { removeKeys: ["absent"] })).toBe(pkg);
  });

  it("creates data when the ConfigMap has none", () => {
    const bare = {
      "package-context.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n",
    };
    expect(
      dataOf(applyPackageContext(bare, { data: { a: "b" } }) as Record<string, string>),
    ).toEqual({ a: "b" });
  });

  it("does nothing without data or removeKeys, even without a package context", () => {
    const noContext = { Kptfile: KPTFILE };
    expect(applyPackageContext(noContext, undefined)).toBe(noContext);
    expect(applyPackageContext(noContext, { data: {}, removeKeys: [] })).toBe(noContext);
  });

  it.each([
    [
      "the file is missing",
      { Kptfile: KPTFILE },
      /the downstream package has no package-context.yaml/,
    ],
    [
      "the file has no such ConfigMap",
      { "package-context.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n" },
      /package-context.yaml does not contain it/,
    ],
    [
      "the file is not YAML",
      { "package-context.yaml": "a: [\n" },
      /package-context.yaml: invalid YAML/,
    ],
    [
      "data is not a map",
      {
        "package-context.yaml":
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata: [a]\n",
      },
      /data field that is not a map/,
    ],
  ])("fails with an actionable MutationError when %s", (_, files, message) => {
    const apply = () => applyPackageContext(files, { data: { region: "a" } });
    expect(apply).toThrow(MutationError);
    expect(apply).toThrow(message);
  });

  it("tells the user how to fix a missing package context", () => {
    expect(() => applyPackageContext({ Kptfile: KPTFILE }, { data: { a: "b" } })).toThrow(
      'spec.packageContext needs the package context ConfigMap "kptfile.kpt.dev" in package-context.yaml, ' +
        "but the downstream package has no package-context.yaml. Porch creates it for packages in " +
        "deployment repositories (Repository spec.deployment: true); add it to the upstream package, " +
        "or remove spec.packageContext",
    );
  });
});
