import { classify, namesFieldPath } from "../../../faults/fuzz/classify";

const status = (code: number, message: string, causes?: { field?: string }[]) =>
  JSON.stringify({ kind: "Status", code, message, details: causes ? { causes } : undefined });

describe("classify", () => {
  it("takes a 2xx for admitted", () => {
    expect(classify(201, "{}")).toBe("allowed");
  });

  it("takes a 5xx, no answer, or Pepr's thrown-action wording for a server error", () => {
    expect(classify(500, status(500, "Internal error"))).toBe("serverError");
    expect(classify(0, "Error: socket hang up")).toBe("serverError");
    expect(
      classify(
        400,
        status(400, 'admission webhook "x" denied the request: Action failed with error: {}'),
      ),
    ).toBe("serverError");
  });

  it("takes a denial naming a field path for a denial, from the message or a cause", () => {
    expect(
      classify(
        422,
        status(
          422,
          'PackageVariant.config.porch.kpt.dev "x" is invalid: spec.adoptionPolicy: Unsupported value',
        ),
      ),
    ).toBe("denied");
    expect(classify(422, status(422, "is invalid", [{ field: "spec.labels" }]))).toBe("denied");
    expect(
      classify(
        400,
        status(
          400,
          'admission webhook "p" denied the request: must specify at least one item in spec.targets',
        ),
      ),
    ).toBe("denied");
  });

  it("takes any other denial for an unnamed one", () => {
    expect(classify(400, status(400, "validation failed unexpectedly: boom"))).toBe(
      "unnamedDenial",
    );
    expect(classify(413, "Request entity too large")).toBe("unnamedDenial");
  });
});

describe("namesFieldPath", () => {
  it.each([
    "spec.targets[0].template.labelExprs[1].valueExpr: Syntax error",
    "metadata.name: Invalid value",
    'spec.resources["Kptfile"] pipeline.mutators[0]: exec function',
    'is invalid: spec: Invalid value: "string": spec in body must be of type object',
    "[spec.lifecycle: Unsupported value]",
    // A field named "" under spec, as the API server's strict decoding names it.
    'strict decoding error: unknown field "spec."',
    'unknown field "spec.template."',
  ])("finds one in %s", text => expect(namesFieldPath(text)).toBe(true));

  it.each([
    'PackageVariant.config.porch.kpt.dev "x" is invalid',
    "the spec is wrong",
    "metadata",
    "inspect.labels: not ours",
    "cannot unmarshal array into Go struct field ObjectMeta.name of type string",
    "a spec. Nothing else",
  ])("finds none in %s", text => expect(namesFieldPath(text)).toBe(false));
});
