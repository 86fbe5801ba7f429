import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_FUNCTIONS } from "../../../../lib/fn/builtins";
import { loadFunctionCatalog, type CatalogLoad } from "../../../../lib/fn/catalog/load";
import { compileSchema, type Schema } from "../../../../lib/fn/catalog/schema";
import { catalogFormats } from "../../../../lib/fn/catalog/formats";
import { DEFAULT_BUILTIN_LIMITS as LIMITS } from "../../../../lib/fn/bounds";

const builtinNames = Object.keys(BUILTIN_FUNCTIONS);
const load = (text: string): CatalogLoad =>
  loadFunctionCatalog(text, { origin: "ConfigMap pepr-system/porch-pepr-functions", builtinNames });
const problems = (text: string): string[] => {
  const result = load(text);
  return "problems" in result ? result.problems : [];
};
const DEFAULTS = builtinNames.length;

describe("loadFunctionCatalog: a valid catalog", () => {
  it("reads every field into entries in match order, the defaults last", () => {
    const result = load(`
functions:
  - image: "*/set-namespace:*"
    runtime: builtin
  - image: "example.com/fns/labeller:v1.*"
    runtime: exec
    executable: {path: /opt/fns/labeller, timeout: 1m30s, maxOutputBytes: 1048576}
  - exec: labeller
    runtime: exec
    executable: {path: /opt/fns/labeller}
  - image: "example.com/fns/*:>=1.2.0 <2"
    runtime: pod
    pod:
      entrypoint: [/usr/local/bin/function, --serve]
      resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: "1", memory: 1.5Gi}}
      timeout: 60s
      idle: 10m
pod:
  namespace: porch-fn
  serviceAccountName: porch-fn
  wrapperImage: example.com/porch/wrapper:v1.0.0
`);
    if (!("catalog" in result)) throw new Error(result.problems.join("; "));
    const { entries, pod, origin } = result.catalog;
    expect(origin).toBe("ConfigMap pepr-system/porch-pepr-functions");
    expect(entries.map(e => [e.where, e.run])).toEqual([
      ["functions[0]", { runtime: "builtin", builtin: "set-namespace", limits: LIMITS }],
      [
        "functions[1]",
        {
          runtime: "exec",
          path: "/opt/fns/labeller",
          timeoutMs: 90_000,
          maxOutputBytes: 1048576,
          maxInputBytes: 33554432,
        },
      ],
      [
        "functions[2]",
        {
          runtime: "exec",
          path: "/opt/fns/labeller",
          timeoutMs: 60_000,
          maxOutputBytes: 33554432,
          maxInputBytes: 33554432,
        },
      ],
      [
        "functions[3]",
        {
          runtime: "pod",
          pod: {
            entrypoint: ["/usr/local/bin/function", "--serve"],
            resources: {
              requests: { cpu: "100m", memory: "64Mi" },
              limits: { cpu: "1", memory: "1.5Gi" },
            },
            timeoutMs: 60_000,
            idleMs: 600_000,
          },
        },
      ],
      ...builtinNames.map(name => [
        `the built-in default for ${name}`,
        { runtime: "builtin", builtin: name, limits: LIMITS },
      ]),
    ]);
    expect(entries[2].match).toEqual({ exec: "labeller" });
    expect(pod).toEqual({
      namespace: "porch-fn",
      serviceAccountName: "porch-fn",
      wrapperImage: "example.com/porch/wrapper:v1.0.0",
    });
  });

  it.each([
    ["an empty document", ""],
    ["a comment only", "# nothing yet\n"],
    ["an empty functions list", "functions: []\n"],
  ])("is the defaults alone for %s", (_what, text) => {
    const result = load(text);
    expect("catalog" in result && result.catalog.entries.length).toBe(DEFAULTS);
  });

  it("leaves the defaults out when builtinDefaults is false", () => {
    const result = load(
      "builtinDefaults: false\nfunctions:\n  - {image: 'example.com/set-labels:*', runtime: builtin}\n",
    );
    expect("catalog" in result && result.catalog.entries.map(e => e.where)).toEqual([
      "functions[0]",
    ]);
    const none = load("builtinDefaults: false\n");
    expect("catalog" in none && none.catalog.entries).toEqual([]);
  });

  it("takes the built-in from the exec name when it is a built-in's", () => {
    const result = load("functions:\n  - {exec: set-labels, runtime: builtin}\n");
    expect("catalog" in result && result.catalog.entries[0].run).toEqual({
      runtime: "builtin",
      builtin: "set-labels",
      limits: LIMITS,
    });
  });

  it("bounds built-ins by their entry's limits, else builtinLimits, else the defaults", () => {
    const result = load(`
builtinLimits: {timeout: 20s, maxMemory: 1Gi}
functions:
  - image: "**/apply-replacements:*"
    runtime: builtin
    limits: {timeout: 500ms, maxMemory: 200M, maxInputBytes: 2048, maxOutputBytes: 4096}
`);
    if (!("catalog" in result)) throw new Error(result.problems.join("; "));
    const limits = result.catalog.entries.map(e => e.run.runtime === "builtin" && e.run.limits);
    expect(limits[0]).toEqual({
      timeoutMs: 500,
      maxMemoryMiB: 190,
      maxInputBytes: 2048,
      maxOutputBytes: 4096,
    });
    // The built-in defaults take the catalog's builtinLimits.
    expect(limits[1]).toEqual({ ...LIMITS, timeoutMs: 20_000, maxMemoryMiB: 1024 });
  });
});

describe("loadFunctionCatalog: every problem, each with its path", () => {
  it("names every problem of a catalog at once", () => {
    expect(
      problems(`
builtinDefaults: "no"
extra: 1
functions:
  - image: "example.com/fns/labeller:v1.*"
    runtime: exec
    executable: {path: opt/fns/labeller, timeout: 30, maxOutputBytes: 12, user: root}
  - exec: "labeller --verbose"
    runtime: exec
  - image: "example.com/fns/*:>=1.2.0 <2"
    runtime: pod
    pod:
      entrypoint: []
      resources: {requests: {cpu: lots}, limits: {gpu: "1"}}
      timeout: 2d
      idle: 0s
  - image: "Example.com/FNS/x:*"
    exec: x
    runtime: builtin
    builtin: starlark
  - runtime: pod
  - {}
  - image: "a/**b/c:*"
    runtime: sandbox
  - image: "example.com/fns/*:*"
    runtime: builtin
  - exec: labeller
    runtime: builtin
    executable: {path: /opt/x}
    pod: {entrypoint: [/f]}
pod:
  namespace: Porch_fn
  wrapperImage: wrapper
`),
    ).toEqual([
      "builtinDefaults: must be true or false",
      "extra: is not a field here (fields: builtinDefaults, functions, builtinLimits, pod)",
      'functions[0].executable.path: "opt/fns/labeller" is not an absolute path',
      "functions[0].executable.timeout: must be a duration like 30s (ms, s, m or h) from 1ms to 24h",
      "functions[0].executable.maxOutputBytes: must be from 1024 to 1073741824",
      "functions[0].executable.user: is not a field here (fields: path, timeout, maxOutputBytes, maxInputBytes)",
      `functions[1].exec: "labeller --verbose" must be a name (letters, digits, '.', '_' or '-') or an absolute path`,
      "functions[1]: runtime exec needs `executable` (at least its path)",
      "functions[2].pod.entrypoint: must have at least 1 entry",
      "functions[2].pod.resources.requests.cpu: must be a Kubernetes quantity like 250m or 128Mi",
      "functions[2].pod.resources.limits.gpu: is not a field here (fields: cpu, memory)",
      "functions[2].pod.timeout: must be a duration like 30s (ms, s, m or h) from 1ms to 24h",
      "functions[2].pod.idle: must be a duration like 30s (ms, s, m or h) from 1ms to 24h",
      `functions[3].image: path segment "FNS" may have only lowercase letters, digits, '.', '_', '-' and '*'`,
      `functions[3].builtin: there is no built-in function "starlark" (built-ins: ${builtinNames.join(", ")})`,
      "functions[3]: may have only one of `image` and `exec`",
      "functions[4]: needs `image` (a pattern of function images) or `exec` (a Kptfile exec name)",
      "functions[4]: runtime pod needs `image` (a Pod runs the pipeline's image) and `pod` (at least its entrypoint)",
      "functions[5].runtime: is required",
      "functions[5]: needs `image` (a pattern of function images) or `exec` (a Kptfile exec name)",
      `functions[6].image: "**" must be a whole segment, not part of "**b"`,
      "functions[6].runtime: must be one of builtin, exec, pod",
      "functions[8]: `executable` is only for runtime exec",
      "functions[8]: `pod` is only for runtime pod",
      "pod.serviceAccountName: is required",
      "pod.namespace: must be a lowercase RFC 1123 label (a-z, 0-9 and '-')",
      "pod.wrapperImage: needs a tag or a digest: the image every function Pod starts from should not move",
      `functions[7].builtin: is required: the pattern's last segment is not the name of a built-in (${builtinNames.join(", ")})`,
      `functions[8].builtin: is required: the exec name is not the name of a built-in (${builtinNames.join(", ")})`,
    ]);
  });

  it("names what is wrong with built-in limits", () => {
    expect(
      problems(`
builtinLimits: {maxMemory: 16Mi, timeout: forever, maxOutputBytes: 10}
functions:
  - image: "**/set-labels:*"
    runtime: builtin
    limits: {maxMemory: lots, maxCpu: 1}
  - exec: labeller
    runtime: exec
    executable: {path: /opt/x, maxInputBytes: 1}
    limits: {timeout: 1s}
`),
    ).toEqual([
      "builtinLimits.maxMemory: must be a memory quantity from 32Mi to 4Gi, like 256Mi",
      "builtinLimits.timeout: must be a duration like 30s (ms, s, m or h) from 1ms to 24h",
      "builtinLimits.maxOutputBytes: must be from 1024 to 1073741824",
      "functions[0].limits.maxMemory: must be a memory quantity from 32Mi to 4Gi, like 256Mi",
      "functions[0].limits.maxCpu: is not a field here (fields: timeout, maxMemory, maxInputBytes, maxOutputBytes)",
      "functions[1].executable.maxInputBytes: must be from 1024 to 1073741824",
      "functions[1]: `limits` is only for runtime builtin (exec and pod entries have theirs under `executable` and `pod`)",
    ]);
  });

  it("names what is wrong with the document itself", () => {
    expect(problems("- a\n- b\n")).toEqual(["catalog.yaml: must be a mapping"]);
    expect(problems("functions: {}\n")).toEqual(["functions: must be a list"]);
    expect(problems("functions:\n  - image: [\n")[0]).toMatch(/^catalog\.yaml: /);
    expect(problems("functions: []\nfunctions: []\n")).toEqual([
      expect.stringMatching(/^catalog\.yaml: Map keys must be unique/),
    ]);
    expect(problems('pod: {namespace: a}\n"we\\u0000ird": 1\n')).toEqual([
      "pod.serviceAccountName: is required",
      "pod.wrapperImage: is required",
      'catalog.yaml["we\\u0000ird"]: is not a field here (fields: builtinDefaults, functions, builtinLimits, pod)',
    ]);
    expect(
      problems("functions:\n  - {image: 'x/fn:*', runtime: pod, pod: {entrypoint: [/f]}}\n"),
    ).toEqual(["pod: is required: functions[0] has runtime pod"]);
  });

  it("is bounded: size, entries, aliases", () => {
    expect(problems(`# ${"x".repeat(256 * 1024)}\n`)).toEqual([
      "catalog.yaml: is larger than 262144 bytes",
    ]);
    const many = Array.from(
      { length: 129 },
      () => "  - {image: 'x/fn:*', runtime: builtin, builtin: set-labels}",
    ).join("\n");
    expect(problems(`functions:\n${many}\n`)).toEqual(["functions: must have at most 128 entries"]);
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      ...Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(", ")}]`,
      ),
    ].join("\n");
    expect(problems(bomb)[0]).toMatch(/^catalog\.yaml: .*alias/i);
  });

  it("reports at most 50 problems, then how many more", () => {
    const entries = Array.from({ length: 60 }, () => "  - {}").join("\n");
    const found = problems(`functions:\n${entries}\n`);
    expect(found).toHaveLength(51);
    expect(found[50]).toBe("and 70 more problems");
  });

  it("keeps the entries whose match could be read, with their own problems", () => {
    const result = load(`
functions:
  - {exec: labeller, runtime: exec}
  - {image: "example.com/fns/*:*", runtime: exec, executable: {path: /x, timeout: soon}}
  - {image: "bad pattern", runtime: exec, executable: {path: /x}}
`);
    expect("entries" in result && result.entries.map(e => [e.where, e.problems])).toEqual([
      ["functions[0]", ["functions[0]: runtime exec needs `executable` (at least its path)"]],
      [
        "functions[1]",
        [
          "functions[1].executable.timeout: must be a duration like 30s (ms, s, m or h) from 1ms to 24h",
        ],
      ],
    ]);
  });
});

describe("the schema file", () => {
  const schema = JSON.parse(
    readFileSync(join(__dirname, "../../../../lib/fn/catalog/catalog.schema.json"), "utf8"),
  ) as Schema;

  it("uses only what the interpreter implements (the loader compiles this very file)", () => {
    expect(() => compileSchema(schema, catalogFormats(builtinNames))).not.toThrow();
  });

  it("refuses keywords, references and formats it does not implement", () => {
    const formats = catalogFormats(builtinNames);
    expect(() => compileSchema({ type: "object", patternProperties: {} }, formats)).toThrow(
      "schema keyword #/patternProperties is not supported",
    );
    expect(() => compileSchema({ $ref: "other.json#/x" }, formats)).toThrow(
      "only #/$defs/<name> is supported",
    );
    expect(() => compileSchema({ type: "string", format: "email" }, formats)).toThrow(
      "no checker for format email",
    );
    expect(() => compileSchema({ additionalProperties: true }, formats)).toThrow(
      "only false is supported",
    );
  });

  it("accepts every example catalog of docs/function-catalog.md", () => {
    const doc = readFileSync(join(__dirname, "../../../../docs/function-catalog.md"), "utf8");
    const examples = [...doc.matchAll(/```yaml\n# catalog\.yaml\n([\s\S]*?)```/g)].map(m => m[1]);
    expect(examples.length).toBeGreaterThan(0);
    for (const text of examples) expect(problems(text)).toEqual([]);
  });
});
