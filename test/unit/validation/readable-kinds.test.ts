import type { PackageVariantSetSpec, PackageVariantSpec } from "../../../crd-types";
import {
  DEFAULT_READABLE_KINDS,
  packageVariantKindProblems,
  packageVariantSetKindProblems,
  parseReadableKinds,
  ReadableKindPolicy,
  readableKindProblem,
} from "../../../lib/validation/readable-kinds";
import { pathSegmentNameProblem } from "../../../lib/validation";

const policy = (text: string, clusterScoped: string[] = []): ReadableKindPolicy => ({
  allowed: parseReadableKinds(text),
  clusterScoped: new Set(clusterScoped),
});

const defaults = policy(DEFAULT_READABLE_KINDS);

describe("parseReadableKinds", () => {
  it("reads core and grouped kinds, ignoring blanks", () => {
    expect(parseReadableKinds(" v1/ConfigMap, ,example.com/v1/Thing")).toEqual([
      { group: "", version: "v1", kind: "ConfigMap" },
      { group: "example.com", version: "v1", kind: "Thing" },
    ]);
  });

  it.each(["ConfigMap", "a/b/c/d", "v1/", "/v1/Thing"])("refuses %p", entry => {
    expect(() => parseReadableKinds(entry)).toThrow(/PORCH_PEPR_READABLE_KINDS/);
  });
});

describe("readableKindProblem", () => {
  it("allows a listed namespaced kind", () => {
    expect(
      readableKindProblem("p", { group: "", version: "v1", kind: "ConfigMap" }, defaults),
    ).toBeUndefined();
  });

  it("names the path and the allowed kinds for another kind", () => {
    expect(readableKindProblem("p", { group: "", version: "v1", kind: "Secret" }, defaults)).toBe(
      "p: v1/Secret is not a readable kind; allowed kinds: v1/ConfigMap, config.porch.kpt.dev/v1alpha1/Repository",
    );
  });

  it("refuses a listed kind that is cluster-scoped", () => {
    const p = policy("v1/ConfigMap,v1/Namespace", ["v1/Namespace"]);
    expect(readableKindProblem("p", { group: "", version: "v1", kind: "Namespace" }, p)).toBe(
      "p: v1/Namespace is cluster-scoped; only namespaced kinds are read, in the object's own namespace",
    );
  });
});

describe("packageVariantKindProblems", () => {
  const spec = (injectors: unknown[]) => ({ injectors }) as PackageVariantSpec;

  it("allows a ConfigMap injector and one that names no kind (a ConfigMap fits it)", () => {
    expect(
      packageVariantKindProblems(spec([{ kind: "ConfigMap", name: "a" }, { name: "b" }]), defaults),
    ).toEqual([]);
  });

  it("refuses an injector no readable kind fits", () => {
    expect(
      packageVariantKindProblems(
        spec([{ name: "a" }, { group: "", kind: "Node", name: "n" }]),
        defaults,
      ),
    ).toEqual([
      'spec.injectors[1] (group "", kind "Node") matches no readable kind; allowed kinds: v1/ConfigMap, config.porch.kpt.dev/v1alpha1/Repository',
    ]);
  });

  it("refuses an injector whose only fitting kinds are cluster-scoped", () => {
    const p = policy("v1/ConfigMap,example.com/v1/Site", ["example.com/v1/Site"]);
    expect(packageVariantKindProblems(spec([{ group: "example.com", name: "s" }]), p)).toEqual([
      "spec.injectors[0]: example.com/v1/Site is cluster-scoped; only namespaced kinds are read, in the object's own namespace",
    ]);
  });
});

describe("packageVariantSetKindProblems", () => {
  const set = (targets: unknown[]) => ({ targets }) as PackageVariantSetSpec;

  it("allows repository selectors and listed object selectors", () => {
    expect(
      packageVariantSetKindProblems(
        set([
          { repositorySelector: { matchLabels: { a: "b" } } },
          { objectSelector: { apiVersion: "v1", kind: "ConfigMap" } },
        ]),
        defaults,
      ),
    ).toEqual([]);
  });

  it("refuses an object selector on Secrets and a template injector of another kind", () => {
    expect(
      packageVariantSetKindProblems(
        set([
          {
            objectSelector: { apiVersion: "v1", kind: "Secret" },
            template: { injectors: [{ kind: "Secret", nameExpr: "'x'" }] },
          },
        ]),
        defaults,
      ),
    ).toEqual([
      "spec.targets[0].objectSelector: v1/Secret is not a readable kind; allowed kinds: v1/ConfigMap, config.porch.kpt.dev/v1alpha1/Repository",
      'spec.targets[0].template.injectors[0] (kind "Secret") matches no readable kind; allowed kinds: v1/ConfigMap, config.porch.kpt.dev/v1alpha1/Repository',
    ]);
  });
});

describe("injector names", () => {
  it("refuses a name that would address another path", () => {
    const spec = {
      injectors: [{ kind: "ConfigMap", name: "../secrets/db" }],
    } as PackageVariantSpec;
    expect(packageVariantKindProblems(spec, defaults)).toEqual([
      `spec.injectors[0].name: Invalid value: "../secrets/db": may not contain '/' or '%'`,
    ]);
  });
});

describe("pathSegmentNameProblem", () => {
  it.each([".", "..", "a/b", "a%2Fb"])("refuses %p", name => {
    expect(pathSegmentNameProblem(name)).toBeDefined();
  });
  it("accepts a Kubernetes name", () => {
    expect(pathSegmentNameProblem("us-east1.endpoints")).toBeUndefined();
  });
});
