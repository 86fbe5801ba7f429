import { additionalFieldSpecs } from "../../../lib/fn/builtins/field-spec";

describe("additionalFieldSpecs (set-annotations, ensure-name-substring)", () => {
  const spec = (path: string) => ({ path, create: false });
  const read = (config: Record<string, unknown>) =>
    additionalFieldSpecs(config, "additionalXFields");

  it("takes the additional fields, else the deprecated fieldSpecs, else none", () => {
    expect(read({ additionalXFields: [{ path: "a" }] })).toMatchObject([spec("a")]);
    expect(read({ fieldSpecs: [{ path: "b" }] })).toMatchObject([spec("b")]);
    expect(read({})).toEqual([]);
  });

  it("refuses both at once, naming the new field", () => {
    expect(() => read({ additionalXFields: [{ path: "a" }], fieldSpecs: [{ path: "b" }] })).toThrow(
      "`fieldSpecs` has been deprecated, please rename it to `additionalXFields`",
    );
  });
});
