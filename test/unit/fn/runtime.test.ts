import {
  createFunctionRuntime,
  ExecDeniedError,
  FunctionRuntimeError,
  imageFunctionName,
} from "../../../lib/fn/runtime";

describe("imageFunctionName", () => {
  it.each([
    ["gcr.io/kpt-fn/set-namespace:v0.4.1", "set-namespace"],
    ["ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4", "set-namespace"],
    ["set-namespace", "set-namespace"],
    ["localhost:5000/fns/apply-setters:latest", "apply-setters"],
    ["gcr.io/kpt-fn/search-replace@sha256:0123abcd", "search-replace"],
    ["docker.io/example/set-labels:1.0@sha256:0123abcd", "set-labels"],
  ])("%s → %s", (image, name) => {
    expect(imageFunctionName(image)).toBe(name);
  });
});

describe("createFunctionRuntime", () => {
  it("selects the built-in for any registry prefix and tag", () => {
    const runtime = createFunctionRuntime();
    for (const image of [
      "gcr.io/kpt-fn/set-labels:v0.2.0",
      "ghcr.io/kptdev/krm-functions-catalog/set-labels:latest",
      "set-labels",
    ]) {
      expect(runtime.resolve({ image }).runtime).toBe("builtin");
    }
  });

  it("lists what is available, including whether exec is enabled", () => {
    const runtime = createFunctionRuntime({
      execPolicy: { enabled: true, allowed: new Map([["/bin/true", "/bin/true"]]) },
    });
    expect(runtime.describe()).toBe(
      "builtin (apply-replacements, apply-setters, ensure-name-substring, search-replace, set-annotations, set-labels, set-namespace); exec (1 allowed)",
    );
    expect(runtime.resolve({ exec: "/bin/true" }).runtime).toBe("exec");
    expect(() => runtime.resolve({ exec: "/bin/false" })).toThrow(ExecDeniedError);
  });

  it("throws FunctionRuntimeError for an unknown image, and can be given another set of built-ins", () => {
    const only = createFunctionRuntime({ builtins: { mine: () => ({ items: [], results: [] }) } });
    expect(only.resolve({ image: "example.com/fns/mine:v1" }).runtime).toBe("builtin");
    expect(() => only.resolve({ image: "set-labels" })).toThrow(FunctionRuntimeError);
    expect(() => only.resolve({ image: "set-labels" })).toThrow(
      'no runtime can run function image "set-labels": available runtimes are builtin (mine); exec (disabled)',
    );
  });
});
