import type { PackageVariantSetSpec, PackageVariantSpec } from "../../../crd-types";
import { validatePackageVariant, validatePackageVariantSet } from "../../../lib/validation";
import { loadExamples } from "../../support/examples";

const validators = {
  PackageVariant: (spec: unknown) => validatePackageVariant(spec as PackageVariantSpec),
  PackageVariantSet: (spec: unknown) => validatePackageVariantSet(spec as PackageVariantSetSpec),
};

describe.each(["packagevariant", "packagevariantset"])("examples/%s", folder => {
  const examples = loadExamples(folder);

  it("has valid and invalid examples", () => {
    expect(examples.some(e => e.file.startsWith("invalid-"))).toBe(true);
    expect(examples.some(e => !e.file.startsWith("invalid-"))).toBe(true);
  });

  it.each(examples.map(e => [e.file, e] as const))("%s", (file, example) => {
    const problems = validators[example.kind as keyof typeof validators](example.object.spec);
    if (!file.startsWith("invalid-")) {
      expect(problems).toEqual([]);
      return;
    }
    expect(example.expected.length).toBeGreaterThan(0);
    // Every expected problem is reported, and nothing else is.
    for (const text of example.expected) {
      expect(problems.filter(p => p.includes(text))).toHaveLength(1);
    }
    expect(problems).toHaveLength(example.expected.length);
  });
});
