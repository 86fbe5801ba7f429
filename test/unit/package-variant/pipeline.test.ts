import { parse } from "yaml";
import {
  applyPipeline,
  isPackageVariantFunction,
  MutationError,
  packageVariantFunctionName,
} from "../../../lib/package-variant";
import type { PackageVariantSpec } from "../../../crd-types";
import { KPTFILE } from "./fixtures";

const pipeline: NonNullable<PackageVariantSpec["pipeline"]> = {
  mutators: [
    { image: "set-namespace:v0.1", configMap: { namespace: "my-ns" }, name: "my-func" },
    { image: "set-labels:v0.1", configMap: { app: "foo" } },
  ],
  validators: [{ image: "kubeval:v1" }],
};
const kptfileOf = (files: Record<string, string>) => parse(files.Kptfile);
const names = (files: Record<string, string>, stage: "mutators" | "validators") =>
  (kptfileOf(files).pipeline?.[stage] ?? []).map((f: { name?: string }) => f.name ?? null);

describe("function names", () => {
  it.each([
    ["my-pv", "my-func", 0, "PackageVariant.my-pv.my-func.0"],
    ["my-pv", undefined, 1, "PackageVariant.my-pv..1"],
    ["my-pv", "", 2, "PackageVariant.my-pv..2"],
  ])("%s %s %d → %s", (pv, fn, i, expected) => {
    expect(packageVariantFunctionName(pv, fn, i)).toBe(expected);
  });

  it.each([
    ["PackageVariant.my-pv.my-func.0", "my-pv", true],
    ["PackageVariant.my-pv..12", "my-pv", true],
    ["PackageVariant.my-pv.f.-1", "my-pv", true],
    ["PackageVariant.other.f.0", "my-pv", false],
    ["PackageVariant.my-pv.f.x", "my-pv", false],
    ["PackageVariant.my-pv.f", "my-pv", false],
    ["PackageVariant.my-pv.a.b.0", "my-pv", false],
    ["packagevariant.my-pv.f.0", "my-pv", false],
    ["set-labels", "my-pv", false],
    [undefined, "my-pv", false],
    // A name with dots is matched as a whole (the reference's 4-part split never matches it).
    ["PackageVariant.a.b.f.0", "a.b", true],
    ["PackageVariant.a.b.0", "a.b", false],
    ["PackageVariant.a.b.f.0", "a", false],
  ])("%s is PackageVariant %s's: %s", (name, pv, expected) => {
    expect(isPackageVariantFunction(name, pv)).toBe(expected);
  });
});

describe("applyPipeline", () => {
  const pkg = { Kptfile: KPTFILE };

  it("prepends the functions, named, in spec order, as the documented example", () => {
    const out = applyPipeline(pkg, "my-pv", pipeline) as Record<string, string>;
    expect(kptfileOf(out).pipeline.mutators).toEqual([
      {
        image: "set-namespace:v0.1",
        configMap: { namespace: "my-ns" },
        name: "PackageVariant.my-pv.my-func.0",
      },
      { image: "set-labels:v0.1", configMap: { app: "foo" }, name: "PackageVariant.my-pv..1" },
      { image: "set-labels:v1", configMap: { app: "nginx" } },
    ]);
    expect(names(out, "validators")).toEqual(["PackageVariant.my-pv..0"]);
    expect(out.Kptfile).toContain("- image: set-labels:v1 # upstream's own");
    expect(out.Kptfile).toContain("name: nginx # the package");
  });

  it("is idempotent: applying twice gives the same text as once", () => {
    const once = applyPipeline(pkg, "my-pv", pipeline);
    expect(applyPipeline(once, "my-pv", pipeline)).toBe(once);
  });

  it("replaces its earlier entries when the spec changes", () => {
    const once = applyPipeline(pkg, "my-pv", pipeline);
    const changed = applyPipeline(once, "my-pv", { mutators: [{ image: "new:v1", name: "n" }] });
    expect(names(changed as Record<string, string>, "mutators")).toEqual([
      "PackageVariant.my-pv.n.0",
      null,
    ]);
    expect(kptfileOf(changed as Record<string, string>).pipeline.validators).toBeUndefined();
  });

  it("leaves other PackageVariants' entries in place and in order", () => {
    const other = applyPipeline(pkg, "other-pv", { mutators: [{ image: "o:v1", name: "o" }] });
    const both = applyPipeline(other, "my-pv", pipeline) as Record<string, string>;
    expect(names(both, "mutators")).toEqual([
      "PackageVariant.my-pv.my-func.0",
      "PackageVariant.my-pv..1",
      "PackageVariant.other-pv.o.0",
      null,
    ]);
    const removed = applyPipeline(both, "my-pv", undefined) as Record<string, string>;
    expect(names(removed, "mutators")).toEqual(["PackageVariant.other-pv.o.0", null]);
  });

  it.each([
    [
      "removes empty lists and the empty pipeline",
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: a\n",
    ],
    [
      "removes an explicitly empty list",
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: a\npipeline:\n  mutators: []\n",
    ],
  ])("%s when the PackageVariant's functions go away", (_, kptfile) => {
    const added = applyPipeline({ Kptfile: kptfile }, "my-pv", pipeline);
    const removed = applyPipeline(added, "my-pv", {}) as Record<string, string>;
    expect(kptfileOf(removed).pipeline).toBeUndefined();
  });

  it("keeps the text when there is nothing to do", () => {
    const files = { Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: a\n" };
    expect(applyPipeline(files, "my-pv", undefined)).toBe(files);
    expect(applyPipeline(pkg, "my-pv", { mutators: [] })).toBe(pkg);
  });

  it("puts a new pipeline where kpt does (before status)", () => {
    const files = {
      Kptfile:
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: a\nstatus:\n  conditions: []\n",
    };
    const out = applyPipeline(files, "p", { mutators: [{ image: "x" }] }) as Record<string, string>;
    expect(out.Kptfile.indexOf("pipeline:")).toBeLessThan(out.Kptfile.indexOf("status:"));
  });

  it.each([
    ["no Kptfile", {}, /"Kptfile" not found in the downstream package/],
    [
      "a pipeline that is not a map",
      { Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\npipeline: [a]\n" },
      /pipeline must be a map/,
    ],
    [
      "mutators that are not a list",
      { Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\npipeline:\n  mutators: a\n" },
      /pipeline.mutators must be a list/,
    ],
    ["an unparsable Kptfile", { Kptfile: "a: [\n" }, /^Kptfile does not parse: /],
  ])("fails with a MutationError for %s", (_, files, message) => {
    const apply = () => applyPipeline(files, "my-pv", pipeline);
    expect(apply).toThrow(MutationError);
    expect(apply).toThrow(message);
  });
});
