import {
  createFunctionRuntime,
  ExecDeniedError,
  FunctionRuntimeError,
  type FunctionRunner,
} from "../../../lib/fn/runtime";
import type { PodFunction, PodRuntimeSettings } from "../../../lib/fn/pod-function";
import { catalogHolder, newHolder } from "../../support/function-catalog";

const POD_SETTINGS = {
  namespace: "porch-fn",
  serviceAccountName: "porch-fn",
  wrapperImage: "example.com/porch/wrapper:v1.0.0",
};

describe("createFunctionRuntime with the built-in defaults", () => {
  it("selects the built-in for any registry prefix, tag and digest", () => {
    const runtime = createFunctionRuntime();
    for (const image of [
      "gcr.io/kpt-fn/set-labels:v0.2.0",
      "ghcr.io/kptdev/krm-functions-catalog/set-labels:latest",
      "set-labels",
      "localhost:5000/fns/set-labels:latest",
      `docker.io/example/set-labels:1.0@sha256:${"0".repeat(64)}`,
      `GCR.IO/kpt-fn/set-labels@sha256:${"a".repeat(64)}`,
    ]) {
      expect(runtime.resolve({ image }).runtime).toBe("builtin");
    }
  });

  it("throws FunctionRuntimeError for an unknown image, naming it and the catalog", () => {
    const runtime = createFunctionRuntime();
    expect(() => runtime.resolve({ image: "gcr.io/kpt-fn/starlark:v0.4.3" })).toThrow(
      'no runtime can run function image "gcr.io/kpt-fn/starlark:v0.4.3": no entry of the function catalog (the built-in defaults (apply-replacements, apply-setters, ensure-name-substring, search-replace, set-annotations, set-labels, set-namespace)) matches it',
    );
    expect(runtime.describe()).toBe(
      "the built-in defaults (apply-replacements, apply-setters, ensure-name-substring, search-replace, set-annotations, set-labels, set-namespace); pod runtime not available",
    );
  });

  it("denies every exec function: no default runs one", () => {
    expect(() => createFunctionRuntime().resolve({ exec: "set-labels" })).toThrow(ExecDeniedError);
  });

  it("can be given another set of built-ins, whose names become the defaults", () => {
    const only = createFunctionRuntime({ builtins: { mine: () => ({ items: [], results: [] }) } });
    expect(only.resolve({ image: "example.com/fns/mine:v1" }).runtime).toBe("builtin");
    expect(() => only.resolve({ image: "set-labels" })).toThrow(FunctionRuntimeError);
  });

  it.each([
    ["a huge name", `${"a/".repeat(100_000)}set-labels:v1`, "is longer than 512 characters"],
    ["a control character", "set-labels\u0000:v1", "only printable ASCII characters"],
    ["a newline", "set-labels\n", "only printable ASCII characters"],
    ["a look-alike letter", "gcr.io/kpt-fn/ѕet-labels:v1", "only printable ASCII characters"],
    ["a right-to-left override", "set-labels\u202e:v1", "only printable ASCII characters"],
    ["a dot-dot segment", "evil/../set-labels:v1", 'path segment ".." may have only'],
    ["an empty segment", "gcr.io//set-labels", "has an empty path segment"],
    ["upper case in the path", "gcr.io/kpt-fn/Set-Labels", 'path segment "Set-Labels"'],
    ["two tags", "set-labels:v1:v2", 'tag "v1:v2" may have only'],
    ["a short digest", "set-labels@sha256:0123abcd", "a sha256 digest is 64 lowercase hex digits"],
    ["a space", "set-labels :v1", "only printable ASCII characters"],
    ["nothing", "", "is empty"],
  ])("refuses a reference with %s and never matches it", (_what, image, problem) => {
    const runtime = createFunctionRuntime();
    let error: unknown;
    try {
      runtime.resolve({ image });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(FunctionRuntimeError);
    const message = (error as Error).message;
    expect(message).toContain("is not a valid image reference: ");
    expect(message).toContain(problem);
    // The message quotes the name escaped and shortened: no control character, bounded size.
    expect(message).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(message.length).toBeLessThan(1000);
  });
});

describe("createFunctionRuntime with an administrator's catalog", () => {
  it("takes the first matching entry, then the defaults, unless they are turned off", () => {
    const catalog = catalogHolder(`
functions:
  - image: "example.com/fns/set-labels:v2.*"
    runtime: builtin
    builtin: set-annotations
  - image: "example.com/**:*"
    runtime: builtin
    builtin: set-namespace
`);
    const runtime = createFunctionRuntime({ catalog });
    expect(runtime.resolve({ image: "example.com/fns/set-labels:v2.1.0" }).runtime).toBe("builtin");
    expect(runtime.describe()).toBe(
      "2 entries from ConfigMap pepr-system/porch-pepr-functions, then the built-in defaults (apply-replacements, apply-setters, ensure-name-substring, search-replace, set-annotations, set-labels, set-namespace); pod runtime not available",
    );
    catalog.update({
      "catalog.yaml": `builtinDefaults: false\nfunctions:\n  - {image: "example.com/fns/set-labels:*", runtime: builtin}\n`,
    });
    expect(runtime.resolve({ image: "example.com/fns/set-labels:v9" }).runtime).toBe("builtin");
    expect(() => runtime.resolve({ image: "gcr.io/kpt-fn/set-labels:v1" })).toThrow(
      'no runtime can run function image "gcr.io/kpt-fn/set-labels:v1": no entry of the function catalog (1 entry from ConfigMap pepr-system/porch-pepr-functions) matches it',
    );
  });

  it("runs the built-in the entry names, not the one the image is named after", async () => {
    const calls: string[] = [];
    const builtins = {
      "set-labels": () => (calls.push("set-labels"), { items: [], results: [] }),
      "set-annotations": () => (calls.push("set-annotations"), { items: [], results: [] }),
    };
    const catalog = catalogHolder(
      `functions:\n  - {image: "**/set-labels:v2", runtime: builtin, builtin: set-annotations}\n`,
    );
    const runtime = createFunctionRuntime({ catalog, builtins });
    await runtime.resolve({ image: "set-labels:v2" }).run({ items: [], functionConfig: undefined });
    await runtime.resolve({ image: "set-labels:v1" }).run({ items: [], functionConfig: undefined });
    expect(calls).toEqual(["set-annotations", "set-labels"]);
  });

  it("maps an exec name to a runtime: an executable, or a built-in", () => {
    const catalog = catalogHolder(`
functions:
  - {exec: labeller, runtime: exec, executable: {path: /opt/fns/labeller}}
  - {exec: set-namespace, runtime: builtin}
`);
    const runtime = createFunctionRuntime({ catalog });
    expect(runtime.resolve({ exec: "labeller" }).runtime).toBe("exec");
    expect(runtime.resolve({ exec: "set-namespace" }).runtime).toBe("builtin");
    for (const exec of ["/opt/fns/labeller", "labeller --x", " labeller", "Labeller"])
      expect(() => runtime.resolve({ exec })).toThrow(ExecDeniedError);
  });

  const podCatalog = `
functions:
  - image: "example.com/fns/*:>=1.2.0 <2"
    runtime: pod
    pod:
      entrypoint: [/usr/local/bin/function]
      resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 500m, memory: 256Mi}}
      timeout: 45s
      idle: 5m
pod:
  namespace: porch-fn
  serviceAccountName: porch-fn
  wrapperImage: example.com/porch/wrapper:v1.0.0
`;

  it("fails a pod entry in a process without the pod runtime, naming image, runtime and reason", () => {
    const runtime = createFunctionRuntime({ catalog: catalogHolder(podCatalog) });
    expect(() => runtime.resolve({ image: "example.com/fns/render-helm:v1.3.0" })).toThrow(
      'function image "example.com/fns/render-helm:v1.3.0" matched functions[0] of ConfigMap pepr-system/porch-pepr-functions, runtime pod: the pod runtime is not available in this process',
    );
  });

  it("hands a pod entry to the pod runtime with the image as the pipeline names it", () => {
    const made: [PodFunction, PodRuntimeSettings][] = [];
    const runner: FunctionRunner = { runtime: "pod", run: async () => fail("not run here") };
    const runtime = createFunctionRuntime({
      catalog: catalogHolder(podCatalog),
      podRunner: (fn, settings) => (made.push([fn, settings]), runner),
    });
    expect(runtime.resolve({ image: "example.com/fns/render-helm:v1.3.0" })).toBe(runner);
    expect(made).toEqual([
      [
        {
          image: "example.com/fns/render-helm:v1.3.0",
          entrypoint: ["/usr/local/bin/function"],
          resources: {
            requests: { cpu: "100m", memory: "64Mi" },
            limits: { cpu: "500m", memory: "256Mi" },
          },
          timeoutMs: 45_000,
          idleMs: 300_000,
        },
        POD_SETTINGS,
      ],
    ]);
    // Out of the range: not this entry.
    expect(() => runtime.resolve({ image: "example.com/fns/render-helm:v2.0.0" })).toThrow(
      "no runtime can run function image",
    );
  });

  it("keeps the last valid catalog when a new one is refused, and says so where it matters", () => {
    const catalog = catalogHolder(
      `functions:\n  - {exec: labeller, runtime: exec, executable: {path: /opt/fns/labeller}}\n`,
    );
    const runtime = createFunctionRuntime({ catalog });
    const change = catalog.update({
      "catalog.yaml": `
functions:
  - {exec: labeller, runtime: exec, executable: {path: /opt/fns/labeller}}
  - image: "example.com/fns/*:*"
    runtime: exec
    executable: {path: /opt/fns/all, timeout: soon}
`,
    });
    expect(change.kind).toBe("rejected");
    expect(runtime.resolve({ exec: "labeller" }).runtime).toBe("exec");
    expect(() => runtime.resolve({ image: "example.com/fns/x:v1" })).toThrow(
      'no runtime can run function image "example.com/fns/x:v1": no entry of the function catalog (1 entry from ConfigMap pepr-system/porch-pepr-functions, then the built-in defaults (apply-replacements, apply-setters, ensure-name-substring, search-replace, set-annotations, set-labels, set-namespace)) matches it; ' +
        "the catalog in ConfigMap pepr-system/porch-pepr-functions is invalid, so its last valid version stays in use; " +
        'its entry functions[1] for "example.com/fns/x:v1" is invalid: functions[1].executable.timeout: must be a duration like 30s (ms, s, m or h) from 1ms to 24h',
    );
    // A function no refused entry concerns gets the catalog's problems.
    expect(() => runtime.resolve({ exec: "other" })).toThrow(
      "the catalog in ConfigMap pepr-system/porch-pepr-functions is invalid, so its last valid version stays in use: functions[1].executable.timeout: must be a duration",
    );
  });

  it("starts from the defaults, and a refused first catalog leaves them in use", () => {
    const catalog = newHolder();
    const runtime = createFunctionRuntime({ catalog });
    catalog.update({ "catalog.yaml": "functions: {}" });
    expect(runtime.resolve({ image: "set-labels" }).runtime).toBe("builtin");
    expect(() => runtime.resolve({ image: "example.com/x:v1" })).toThrow(
      "the catalog in ConfigMap pepr-system/porch-pepr-functions is invalid, so the built-in defaults stay in use: functions: must be a list",
    );
  });
});
