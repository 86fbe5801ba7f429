import type { PackageVariantSpec } from "../../../crd-types";
import { validatePackageVariant } from "../../../lib/validation";
import { execView } from "../../support/function-catalog";

const valid: PackageVariantSpec = {
  upstream: { repo: "blueprints", package: "base-ns", revision: 1 },
  downstream: { repo: "deployments", package: "my-ns" },
};

function withSpec(patch: Record<string, unknown>): PackageVariantSpec {
  return { ...valid, ...patch } as PackageVariantSpec;
}

describe("validatePackageVariant", () => {
  it("accepts a minimal spec", () => {
    expect(validatePackageVariant(valid)).toEqual([]);
  });

  it("refuses exec functions unless the administrator's policy allows them", () => {
    const spec = withSpec({
      pipeline: { mutators: [{ image: "set-labels" }, { exec: "/opt/fn" }, { exec: "named" }] },
    });
    expect(validatePackageVariant(spec)).toEqual([
      'spec.pipeline.mutators[1].exec: exec function "/opt/fn" is not allowed: the function catalog has no entry for it (ask the administrator)',
      'spec.pipeline.mutators[2].exec: exec function "named" is not allowed: the function catalog has no entry for it (ask the administrator)',
    ]);
    expect(validatePackageVariant(spec, execView({ named: "/opt/named" }))).toEqual([
      `spec.pipeline.mutators[1].exec: exec function "/opt/fn" is not allowed: the function catalog has no entry for it (ask the administrator)`,
    ]);
  });

  it.each<[string, PackageVariantSpec | undefined, string[]]>([
    [
      "no spec",
      undefined,
      ["missing required field spec.upstream", "missing required field spec.downstream"],
    ],
    [
      "missing package names",
      withSpec({ upstream: { repo: "b", revision: 1 }, downstream: { repo: "d" } }),
      [
        "missing required field spec.upstream.package",
        "missing required field spec.downstream.package",
      ],
    ],
    [
      "missing repos",
      withSpec({ upstream: { package: "p", revision: 1 }, downstream: { package: "p" } }),
      ["missing required field spec.upstream.repo", "missing required field spec.downstream.repo"],
    ],
    [
      "no revision and no workspaceName",
      withSpec({ upstream: { repo: "b", package: "p" } }),
      ["either spec.upstream.revision or spec.upstream.workspaceName must be specified"],
    ],
    [
      "revision and workspaceName",
      withSpec({ upstream: { repo: "b", package: "p", revision: "v2", workspaceName: "ws" } }),
      ["spec.upstream may specify only one of `revision` and `workspaceName`"],
    ],
    ...[0, -1, 1.5, "v0", "V2", "2.0", "newest", ""]
      .filter(v => v !== "")
      .map(
        v =>
          [
            `revision ${JSON.stringify(v)}`,
            withSpec({ upstream: { repo: "b", package: "p", revision: v } }),
            [
              `spec.upstream.revision: Invalid value: ${JSON.stringify(v)}: must be a positive integer, "v<N>" or "latest"`,
            ],
          ] as [string, PackageVariantSpec, string[]],
      ),
    [
      "invalid policies",
      withSpec({ adoptionPolicy: "invalid", deletionPolicy: "invalid" }),
      [
        'spec.adoptionPolicy field can only be "adoptNone" or "adoptExisting"',
        'spec.deletionPolicy can only be "orphan" or "delete"',
      ],
    ],
    [
      "reserved context keys",
      withSpec({ packageContext: { data: { name: "test" }, removeKeys: ["package-path"] } }),
      [
        'spec.packageContext.data: Invalid value: {"name":"test"}: must not contain the key "name"',
        'spec.packageContext.removeKeys: Invalid value: ["package-path"]: must not contain the key "package-path"',
      ],
    ],
    [
      "injector without name",
      withSpec({ injectors: [{ name: "ok" }, { kind: "ConfigMap", name: "" }] }),
      ["spec.injectors[1].name must not be empty"],
    ],
    [
      "function problems",
      withSpec({
        pipeline: {
          validators: [{ name: "no-image" }],
          mutators: [
            { image: "set-labels", name: "a.b" },
            { image: "x", exec: "./fn" },
          ],
        },
      }),
      [
        "spec.pipeline.validators[0].image must not be empty",
        "spec.pipeline.mutators[0].name must not contain '.'",
        "spec.pipeline.mutators[1] may specify only one of `image` and `exec`",
      ],
    ],
    [
      "label syntax",
      withSpec({ labels: { "bad key": "v", ok: "bad value!" }, annotations: { "a/b/c": "x" } }),
      [
        "spec.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        "spec.labels[ok]: Invalid value: \"bad value!\": a valid label value must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        "spec.annotations: Invalid value: \"a/b/c\": a qualified name must consist of at most one '/'",
      ],
    ],
    [
      "an annotation only admission records",
      withSpec({ annotations: { "porch.kpt.dev/approved-by": "ceo" } }),
      [
        'spec.annotations: Invalid value: "porch.kpt.dev/approved-by": is recorded by admission from the authenticated user; it cannot be set',
      ],
    ],
    [
      "downstream package path",
      withSpec({ downstream: { repo: "d", package: "Apps/my_app" } }),
      [
        "spec.downstream.package: Invalid value: \"Apps/my_app\": each path segment must be a lowercase RFC 1123 label (a-z, 0-9 and '-', starting and ending with a letter or digit)",
      ],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(validatePackageVariant(spec)).toEqual(expected);
  });

  it.each([1, 42, "7", "v3", "latest"])("accepts revision %j", revision => {
    expect(
      validatePackageVariant(withSpec({ upstream: { repo: "b", package: "p", revision } })),
    ).toEqual([]);
  });

  it("accepts a workspaceName instead of a revision, nested package paths and allowed exec functions", () => {
    const spec = withSpec({
      upstream: { repo: "b", package: "apps/nginx", workspaceName: "v1" },
      downstream: { repo: "d", package: "apps/nginx-east" },
      pipeline: { mutators: [{ exec: "local-fn" }] },
    });
    expect(validatePackageVariant(spec, execView({ "local-fn": "/opt/fns/local-fn" }))).toEqual([]);
  });
});
