// Every PackageVariant / PackageVariantSet field of Porch's design (docs/package-variants.md and
// docs/package-variant-sets.md, “Spec at a glance”) must exist both in the generated types (the
// fixtures below are type-checked by tsc) and in the CRD schema (checked at runtime, so the API
// server would not prune them).
import type { PackageVariant, PackageVariantSet } from "../../../crd-types";
import { loadCrds, undeclaredPaths, type Crd } from "./crd-schema";

const selector = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  name: "web",
  namespace: "prod",
  labels: { a: "b" },
  annotations: { c: "d" },
};
const fn = {
  image: "gcr.io/kpt-fn/set-namespace:v0.1",
  exec: "/usr/local/bin/fn",
  name: "my-func",
  configMap: { namespace: "my-ns" },
  configPath: "fn-config.yaml",
  selectors: [selector],
  exclude: [selector],
};
const condition = {
  type: "Ready",
  status: "True" as const,
  reason: "NoErrors",
  message: "ok",
  lastTransitionTime: "2025-01-01T00:00:00Z",
  observedGeneration: 1,
};
const renderStatus = {
  error: "",
  result: {
    apiVersion: "kpt.dev/v1",
    kind: "FunctionResultList",
    metadata: { name: "fnresults" },
    exitCode: 0,
    items: [
      {
        image: "img",
        exec: "",
        stderr: "",
        exitCode: 0,
        results: [
          {
            message: "m",
            severity: "info",
            resourceRef: { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "n" },
            field: { path: "data.x", currentValue: "1", proposedValue: "2" },
            file: { path: "c.yaml", index: 0 },
            tags: { k: "v" },
          },
        ],
      },
    ],
  },
};

const packageVariant: PackageVariant = {
  apiVersion: "config.porch.kpt.dev/v1alpha1",
  kind: "PackageVariant",
  metadata: { name: "my-pv", namespace: "default" },
  spec: {
    upstream: { repo: "blueprints", package: "foo", revision: "v1", workspaceName: "v1" },
    downstream: { repo: "edge01", package: "foo" },
    adoptionPolicy: "adoptExisting",
    deletionPolicy: "orphan",
    labels: { "package-type": "namespace" },
    annotations: { owner: "hr" },
    packageContext: { data: { region: "us-east1" }, removeKeys: ["old"] },
    pipeline: { mutators: [fn], validators: [fn] },
    injectors: [
      { group: "example.com", version: "v1", kind: "Endpoints", name: "useast1-endpoints" },
    ],
  },
  status: {
    observedGeneration: 1,
    conditions: [condition],
    downstreamTargets: [{ name: "edge01.foo.packagevariant-1", renderStatus }],
  },
};

const numericRevision: PackageVariant = {
  spec: { upstream: { repo: "r", package: "p", revision: 2 } },
};

const mapExpr = {
  key: "org",
  value: "hr",
  keyExpr: "'org'",
  valueExpr: "repository.labels['org']",
};
const matchExpressions = [{ key: "region", operator: "In" as const, values: ["us-east1"] }];

const packageVariantSet: PackageVariantSet = {
  apiVersion: "config.porch.kpt.dev/v1alpha2",
  kind: "PackageVariantSet",
  metadata: { name: "example", namespace: "default" },
  spec: {
    upstream: { repo: "example-repo", package: "foo", revision: "v1", workspaceName: "v1" },
    targets: [
      {
        repositories: [
          { name: "cluster-01" },
          { name: "cluster-03", packageNames: ["foo-a", "foo-b"] },
        ],
      },
      {
        repositorySelector: {
          matchLabels: { region: "uswest1" },
          matchExpressions,
          packageNames: ["foo-a"],
        },
      },
      {
        objectSelector: {
          apiVersion: "krm-platform.bigco.com/v1",
          kind: "Team",
          name: "t",
          matchLabels: { org: "hr" },
          matchExpressions,
          packageNames: ["x"],
        },
        template: {
          downstream: {
            repo: "r",
            package: "p",
            repoExpr: "target.name",
            packageExpr: "packageDefault",
          },
          adoptionPolicy: "adoptExisting",
          deletionPolicy: "orphan",
          labels: { org: "hr" },
          labelExprs: [mapExpr],
          annotations: { a: "b" },
          annotationExprs: [mapExpr],
          packageContext: {
            data: { a: "b" },
            removeKeys: ["c"],
            dataExprs: [mapExpr],
            removeKeyExprs: ["'x'"],
          },
          pipeline: {
            mutators: [{ ...fn, configMapExprs: [mapExpr] }],
            validators: [{ ...fn, configMapExprs: [mapExpr] }],
          },
          injectors: [
            { group: "g", version: "v1", kind: "K", name: "n" },
            { nameExpr: "repository.labels['region'] + '-endpoints'" },
          ],
        },
      },
    ],
  },
  status: {
    observedGeneration: 2,
    conditions: [condition, { ...condition, type: "Stalled", status: "False", reason: "Valid" }],
    targets: [
      {
        packageVariant: "example-cluster-01-foo",
        repository: "cluster-01",
        package: "foo",
        ready: "True",
        message: "",
      },
    ],
    counts: { desired: 1, ready: 1, failed: 0 },
  },
};

function schemaOf(kind: string): Crd["spec"]["versions"][number]["schema"]["openAPIV3Schema"] {
  const crd = loadCrds().find(l => l.crd.spec.names.kind === kind)?.crd;
  if (!crd) throw new Error(`no CRD for ${kind}`);
  return crd.spec.versions[0].schema.openAPIV3Schema;
}

describe("design fields", () => {
  it.each([
    ["PackageVariant", packageVariant],
    ["PackageVariant", numericRevision],
    ["PackageVariantSet", packageVariantSet],
  ])("%s fixture uses only declared fields", (kind, fixture) => {
    const { metadata: _metadata, ...rest } = fixture;
    expect(undeclaredPaths(rest, schemaOf(kind), "")).toEqual([]);
  });

  it("detects a field the schema does not declare", () => {
    expect(
      undeclaredPaths({ spec: { upstream: { ref: "stable" } } }, schemaOf("PackageVariant"), ""),
    ).toEqual(["spec.upstream.ref"]);
  });
});
