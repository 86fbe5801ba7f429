import {
  PACKAGE_VARIANT_NAME_ANNOTATION,
  variantLabelValue,
  variantMarks,
} from "../../../lib/package-variant";

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

describe("the label that marks a PackageVariant's revisions", () => {
  it("is the name itself up to 63 characters, so existing drafts are still found", () => {
    expect(variantLabelValue("my-pv")).toBe("my-pv");
    const name63 = "a".repeat(63);
    expect(variantLabelValue(name63)).toBe(name63);
  });

  it("is a valid, stable, distinct label value for a longer name, which an annotation keeps", () => {
    const long = `${"team-".repeat(20)}pv`;
    const other = `${"team-".repeat(20)}pw`;
    const value = variantLabelValue(long);
    expect(value.length).toBeLessThanOrEqual(63);
    expect(value).toMatch(LABEL_VALUE);
    expect(variantLabelValue(long)).toBe(value);
    expect(variantLabelValue(other)).not.toBe(value);
    expect(variantMarks(long)).toEqual({
      labels: { "config.porch.kpt.dev/packagevariant": value },
      annotations: { [PACKAGE_VARIANT_NAME_ANNOTATION]: long },
    });
    expect(variantMarks("short")).toEqual({
      labels: { "config.porch.kpt.dev/packagevariant": "short" },
      annotations: {},
    });
  });

  it("never ends in a separator after truncation", () => {
    const name = `${"a".repeat(53)}.-${"b".repeat(20)}`;
    expect(variantLabelValue(name)).toMatch(LABEL_VALUE);
  });
});
