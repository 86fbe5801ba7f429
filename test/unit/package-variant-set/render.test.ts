import { CelCostBudget, COST_LIMIT_PER_EVALUATION, toCelObject } from "../../../lib/cel";
import {
  renderPackageVariantSpec,
  TargetContext,
  TemplateError,
} from "../../../lib/package-variant-set";
import type { PackageVariantTemplate } from "../../../lib/validation/template";

const repository = toCelObject({
  metadata: { name: "edge-01", namespace: "ns", labels: { region: "eu", tier: "gold" } },
});
const inputs = {
  upstream: { repo: "blueprints", package: "app", revision: 2 },
  upstreamObject: toCelObject({ metadata: { name: "blueprints.app.v2", namespace: "ns" } }),
  repositories: new Map([["edge-01", repository]]),
};

function ctx(template: PackageVariantTemplate, over: Partial<TargetContext> = {}): TargetContext {
  return {
    targetIndex: 0,
    targetKind: "selector",
    repoDefault: "edge-01",
    packageDefault: "app",
    target: toCelObject({
      metadata: { name: "edge-01", labels: { repo: "edge-01", site: "paris" } },
    }),
    template,
    ...over,
  };
}

describe("renderPackageVariantSpec", () => {
  it("without a template: defaults, upstream copied, nothing else", () => {
    expect(renderPackageVariantSpec(ctx({}), inputs)).toEqual({
      upstream: { repo: "blueprints", package: "app", revision: 2 },
      downstream: { repo: "edge-01", package: "app" },
    });
  });

  it("expression results override static values, key by key", () => {
    const spec = renderPackageVariantSpec(
      ctx({
        labels: { tier: "static", keep: "yes" },
        labelExprs: [
          { key: "tier", valueExpr: "repository.labels['tier']" },
          { keyExpr: "'site-' + target.labels.site", value: "true" },
        ],
        annotations: { a: "1" },
        annotationExprs: [{ key: "b", valueExpr: "upstream.name" }],
      }),
      inputs,
    );
    expect(spec.labels).toEqual({ tier: "gold", keep: "yes", "site-paris": "true" });
    expect(spec.annotations).toEqual({ a: "1", b: "blueprints.app.v2" });
  });

  it("package context: data overlay, remove keys sorted and de-duplicated, empty parts omitted", () => {
    const spec = renderPackageVariantSpec(
      ctx({
        packageContext: {
          data: { region: "static" },
          dataExprs: [{ key: "region", valueExpr: "repository.labels.region" }],
          removeKeys: ["z", "a"],
          removeKeyExprs: ["'a'", "'m'"],
        },
      }),
      inputs,
    );
    expect(spec.packageContext).toEqual({ data: { region: "eu" }, removeKeys: ["a", "m", "z"] });
    expect(
      renderPackageVariantSpec(ctx({ packageContext: { dataExprs: [] } }), inputs).packageContext,
    ).toBeUndefined();
  });

  it("pipeline functions get their configMap overlaid and lose configMapExprs", () => {
    const spec = renderPackageVariantSpec(
      ctx({
        pipeline: {
          mutators: [
            {
              image: "set-namespace",
              name: "ns",
              configMap: { namespace: "default", other: "x" },
              configMapExprs: [{ key: "namespace", valueExpr: "'ns-' + target.name" }],
            },
          ],
        },
      }),
      inputs,
    );
    expect(spec.pipeline).toEqual({
      mutators: [
        { image: "set-namespace", name: "ns", configMap: { namespace: "ns-edge-01", other: "x" } },
      ],
    });
  });

  it("downstream from expressions, repoExpr evaluated before the repository is loaded", () => {
    const spec = renderPackageVariantSpec(
      ctx({
        downstream: {
          repoExpr: "target.labels.repo",
          packageExpr: "packageDefault + '-' + repository.labels.region",
        },
      }),
      inputs,
    );
    expect(spec.downstream).toEqual({ repo: "edge-01", package: "app-eu" });
  });

  it("injectors keep their GVK and get a computed name", () => {
    const spec = renderPackageVariantSpec(
      ctx({
        injectors: [
          { kind: "ConfigMap", nameExpr: "repository.labels.region + '-endpoints'" },
          { name: "static" },
        ],
      }),
      inputs,
    );
    expect(spec.injectors).toEqual([
      { kind: "ConfigMap", name: "eu-endpoints" },
      { name: "static" },
    ]);
  });

  it.each<[string, PackageVariantTemplate, string]>([
    [
      "a missing label",
      { labelExprs: [{ key: "x", valueExpr: "repository.labels['nope']" }] },
      "spec.targets[0].template.labelExprs[0].valueExpr: No such key: nope (column 1)",
    ],
    [
      "a missing downstream repository",
      { downstream: { repo: "gone" }, labelExprs: [{ key: "x", valueExpr: "'y'" }] },
      'spec.targets[0]: downstream repository "gone" not found',
    ],
    [
      "a bad repoExpr",
      { downstream: { repoExpr: "target.labels['missing']" } },
      "spec.targets[0].template.downstream.repoExpr: No such key: missing (column 1)",
    ],
  ])("fails on %s, naming the field", (_name, template, message) => {
    expect(() => renderPackageVariantSpec(ctx(template), inputs)).toThrow(
      new TemplateError(message),
    );
  });

  it("stops a target whose downstream repository is missing, even without expressions", () => {
    expect(() =>
      renderPackageVariantSpec(
        ctx({ downstream: { repo: "not-registered" }, labels: { a: "b" } }),
        inputs,
      ),
    ).toThrow(
      new TemplateError('spec.targets[0]: downstream repository "not-registered" not found'),
    );
  });

  describe("CEL cost budget", () => {
    const triple =
      "target.labels.map(a, target.labels.map(b, target.labels.map(c, a + b + c))).size() > 0 ? 'many' : 'few'";
    const template: PackageVariantTemplate = {
      labelExprs: [
        { key: "site", valueExpr: "target.labels.site" },
        { key: "size", valueExpr: triple },
      ],
    };
    const crowded = toCelObject({
      metadata: {
        name: "crowded",
        labels: {
          site: "lyon",
          ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, `v${i}`])),
        },
      },
    });

    it("an expression over the budget at run time fails its target, naming the field", () => {
      const budget = new CelCostBudget();
      const shared = { ...inputs, budget };
      expect(() => renderPackageVariantSpec(ctx(template, { target: crowded }), shared)).toThrow(
        new TemplateError(
          `spec.targets[0].template.labelExprs[1].valueExpr: CEL expression exceeds the cost budget at run time (${COST_LIMIT_PER_EVALUATION} per evaluation)`,
        ),
      );
      // Another target of the same set still renders from what is left of the set's budget.
      expect(renderPackageVariantSpec(ctx(template), shared).labels).toEqual({
        site: "paris",
        size: "many",
      });
    });

    it("once the set's budget is spent, its remaining targets fail", () => {
      const probe = new CelCostBudget();
      renderPackageVariantSpec(ctx(template), { ...inputs, budget: probe });
      const oneTarget = probe.limit - probe.remaining;
      const limit = Math.floor(oneTarget * 1.5);
      const shared = { ...inputs, budget: new CelCostBudget(limit) };
      expect(renderPackageVariantSpec(ctx(template), shared).labels).toBeDefined();
      expect(() => renderPackageVariantSpec(ctx(template), shared)).toThrow(
        /^spec\.targets\[0\]\.template\.labelExprs\[\d\]\.valueExpr: CEL cost budget of the PackageVariantSet exhausted \(\d+ per reconcile\)$/,
      );
    });
  });
});
