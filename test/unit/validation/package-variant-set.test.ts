import type { PackageVariantSetSpec } from "../../../crd-types";
import { validatePackageVariantSet } from "../../../lib/validation";

const upstream = { repo: "catalog", package: "foo", revision: "v1" };

function spec(targets: unknown[], up: unknown = upstream): PackageVariantSetSpec {
  return { upstream: up, targets } as PackageVariantSetSpec;
}

const repoTarget = (template?: unknown) => ({ repositories: [{ name: "cluster-01" }], template });
const selectorTarget = (template?: unknown) => ({
  repositorySelector: { matchLabels: { env: "prod" } },
  template,
});

/** Four comprehensions nested over a literal list of 40: 2.5 million steps, whatever the inputs. */
const L40 = `[${Array.from({ length: 40 }, (_, i) => i).join(",")}]`;
const NESTED_40_4 = `${L40}.map(a, ${L40}.map(b, ${L40}.map(c, ${L40}.map(d, a + b + c + d)))).size() > 0`;

describe("validatePackageVariantSet", () => {
  it.each<[string, PackageVariantSetSpec | undefined, string[]]>([
    [
      "no spec",
      undefined,
      ["spec.upstream is a required field", "must specify at least one item in spec.targets"],
    ],
    [
      "upstream fields",
      spec([repoTarget()], {}),
      [
        "spec.upstream.repo is a required field",
        "spec.upstream.package is a required field",
        "either spec.upstream.revision or spec.upstream.workspaceName must be specified",
      ],
    ],
    ["no targets", spec([]), ["must specify at least one item in spec.targets"]],
    [
      "no selector",
      spec([{}]),
      [
        "spec.targets[0] must specify one of `repositories`, `repositorySelector`, or `objectSelector`",
      ],
    ],
    [
      "two selectors",
      spec([
        { repositories: [{ name: "a" }], objectSelector: { apiVersion: "v1", kind: "ConfigMap" } },
      ]),
      [
        "spec.targets[0] must specify one of `repositories`, `repositorySelector`, or `objectSelector`",
      ],
    ],
    [
      "empty repository list and names",
      spec([{ repositories: [] }, { repositories: [{ name: "", packageNames: ["a", ""] }] }]),
      [
        "spec.targets[0].repositories must not be an empty list if specified",
        "spec.targets[1].repositories[0].name cannot be empty",
        "spec.targets[1].repositories[0].packageNames[1] cannot be empty",
      ],
    ],
    [
      "object selector without apiVersion and kind",
      spec([{ objectSelector: { matchLabels: { a: "b" } } }]),
      [
        "spec.targets[0].objectSelector.apiVersion cannot be empty",
        "spec.targets[0].objectSelector.kind cannot be empty",
      ],
    ],
    [
      "selector package names",
      spec([{ repositorySelector: { packageNames: ["ok", "Not_OK"] } }]),
      [
        "spec.targets[0].repositorySelector.packageNames[1]: Invalid value: \"Not_OK\": each path segment must be a lowercase RFC 1123 label (a-z, 0-9 and '-', starting and ending with a letter or digit)",
      ],
    ],
    [
      "template policies",
      spec([repoTarget({ adoptionPolicy: "x", deletionPolicy: "y" })]),
      [
        'spec.targets[0].template.adoptionPolicy can only be "adoptNone" or "adoptExisting"',
        'spec.targets[0].template.deletionPolicy can only be "orphan" or "delete"',
      ],
    ],
    [
      "both static and expression",
      spec([
        repoTarget({
          downstream: { repo: "a", repoExpr: "'a'", package: "b", packageExpr: "'b'" },
        }),
      ]),
      [
        "spec.targets[0].template may specify only one of `downstream.repo` and `downstream.repoExpr`",
        "spec.targets[0].template may specify only one of `downstream.package` and `downstream.packageExpr`",
      ],
    ],
    [
      "map expressions",
      spec([
        repoTarget({
          labelExprs: [{ key: "a", keyExpr: "'a'", value: "b", valueExpr: "'b'" }],
          annotationExprs: [{}],
        }),
      ]),
      [
        "spec.targets[0].template.labelExprs[0] may specify only one of `key` and `keyExpr`",
        "spec.targets[0].template.labelExprs[0] may specify only one of `value` and `valueExpr`",
        "spec.targets[0].template.annotationExprs[0] must specify either `key` or `keyExpr`",
        "spec.targets[0].template.annotationExprs[0] must specify either `value` or `valueExpr`",
      ],
    ],
    [
      "injectors",
      spec([repoTarget({ injectors: [{ name: "a", nameExpr: "'a'" }, { kind: "ConfigMap" }] })]),
      [
        "spec.targets[0].template.injectors[0] may specify only one of `name` and `nameExpr`",
        "spec.targets[0].template.injectors[1] must specify either `name` or `nameExpr`",
      ],
    ],
    [
      "functions",
      spec([
        repoTarget({
          pipeline: { validators: [{ name: "v" }], mutators: [{ image: "i", name: "a.b" }] },
        }),
      ]),
      [
        "spec.targets[0].template.pipeline.validators[0].image must not be empty",
        "spec.targets[0].template.pipeline.mutators[0].name must not contain '.'",
      ],
    ],
    [
      "reserved context keys in a template",
      spec([repoTarget({ packageContext: { data: { "package-path": "x" } } })]),
      [
        'spec.targets[0].template.packageContext.data: Invalid value: {"package-path":"x"}: must not contain the key "package-path"',
      ],
    ],
  ])("%s", (_name, s, expected) => {
    expect(validatePackageVariantSet(s)).toEqual(expected);
  });

  describe("CEL expressions are parsed and type-checked with the field path", () => {
    const at = "spec.targets[0].template";
    it.each<[string, unknown, string]>([
      [
        "repoExpr syntax",
        { downstream: { repoExpr: "target.name +" } },
        `${at}.downstream.repoExpr: Unexpected token: EOF (column 14)`,
      ],
      [
        "unknown variable",
        { downstream: { packageExpr: "cluster.name" } },
        `${at}.downstream.packageExpr: Unknown variable: cluster (column 1)`,
      ],
      [
        "unknown field",
        { labelExprs: [{ key: "a", valueExpr: "target.spec" }] },
        `${at}.labelExprs[0].valueExpr: No such key: spec (column 8)`,
      ],
      [
        "non-string",
        { annotationExprs: [{ keyExpr: "1", value: "v" }] },
        `${at}.annotationExprs[0].keyExpr: must evaluate to a string, but evaluates to int`,
      ],
      [
        "context data",
        { packageContext: { dataExprs: [{ key: "a", valueExpr: "true" }] } },
        `${at}.packageContext.dataExprs[0].valueExpr: must evaluate to a string, but evaluates to bool`,
      ],
      [
        "remove keys",
        { packageContext: { removeKeyExprs: ["nope"] } },
        `${at}.packageContext.removeKeyExprs[0]: Unknown variable: nope (column 1)`,
      ],
      [
        "injector",
        { injectors: [{ nameExpr: "repository.labels['a'] +" }] },
        `${at}.injectors[0].nameExpr: Unexpected token: EOF (column 25)`,
      ],
      [
        "function config",
        {
          pipeline: {
            mutators: [{ image: "i", configMapExprs: [{ key: "k", valueExpr: "upstream.spec" }] }],
          },
        },
        `${at}.pipeline.mutators[0].configMapExprs[0].valueExpr: No such key: spec (column 10)`,
      ],
      [
        "a constant regex RE2 refuses",
        { labelExprs: [{ key: "a", valueExpr: "target.name.matches('(a)\\\\1') ? 'x' : 'y'" }] },
        `${at}.labelExprs[0].valueExpr: invalid regular expression "(a)\\\\1": invalid escape sequence: \`\\1\` (column 21)`,
      ],
      [
        "a cost known to exceed the budget",
        {
          labelExprs: [
            { key: "a", value: "b" },
            { key: "c", valueExpr: `${NESTED_40_4} ? 'x' : 'y'` },
          ],
        },
        `${at}.labelExprs[1].valueExpr: CEL expression exceeds the cost budget: its estimated cost 23433849 is over the limit of 1000000 per evaluation`,
      ],
    ])("%s", (_name, template, expected) => {
      expect(validatePackageVariantSet(spec([selectorTarget(template)]))).toEqual([expected]);
    });

    it("rejects repository in repoExpr but accepts it everywhere else", () => {
      const problems = validatePackageVariantSet(
        spec([
          selectorTarget({
            downstream: { repoExpr: "repository.name", packageExpr: "repository.name" },
          }),
        ]),
      );
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(
        /^spec\.targets\[0\]\.template\.downstream\.repoExpr: `repository` is not available here/,
      );
    });

    it("types target by the kind of target", () => {
      const listTemplate = { downstream: { packageExpr: "target.package + '-' + target.repo" } };
      expect(validatePackageVariantSet(spec([repoTarget(listTemplate)]))).toEqual([]);
      expect(validatePackageVariantSet(spec([selectorTarget(listTemplate)]))).toEqual([
        `${at}.downstream.packageExpr: No such key: package (column 8)`,
      ]);
    });
  });
});
