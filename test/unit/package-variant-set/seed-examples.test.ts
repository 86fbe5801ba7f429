import type { PackageVariantSetSpec } from "../../../crd-types";
import { toCelObject } from "../../../lib/cel";
import { matchesSelector } from "../../../lib/kubernetes/label-selector";
import {
  desiredVariant,
  renderPackageVariantSpec,
  TargetContext,
  unrollRepositoryList,
  unrollSelectedObjects,
} from "../../../lib/package-variant-set";
import { loadExamples } from "../../support/examples";

// The PackageVariantSet examples (docs/package-variant-sets.md, “Worked examples”), unrolled and
// rendered without a cluster.
const examples = Object.fromEntries(loadExamples("packagevariantset").map(e => [e.file, e.object]));
const specOf = (file: string) => (examples[file] as { spec: PackageVariantSetSpec }).spec;

// The repository table of docs/package-variant-sets.md, “Worked examples”.
const repositories = [
  { name: "cluster-01", labels: { region: "useast1", env: "prod", org: "hr" } },
  { name: "cluster-02", labels: { region: "uswest1", env: "prod", org: "finance" } },
  { name: "cluster-03", labels: { region: "useast2", env: "prod", org: "hr" } },
  { name: "cluster-04", labels: { region: "uswest1", env: "prod", org: "hr" } },
].map(r => ({ metadata: { name: r.name, namespace: "default", labels: r.labels } }));

function unroll(spec: PackageVariantSetSpec): TargetContext[] {
  const upstreamPackage = spec.upstream?.package ?? "";
  return (spec.targets ?? []).flatMap((target, i) => {
    if (target.repositories) return unrollRepositoryList(target, i, upstreamPackage);
    const selector = target.repositorySelector;
    const selected = repositories.filter(r => matchesSelector(r.metadata.labels, selector));
    return unrollSelectedObjects(selected, selector?.packageNames, target, i, upstreamPackage);
  });
}

function render(file: string, setName: string) {
  const spec = specOf(file);
  const inputs = {
    upstream: spec.upstream!,
    upstreamObject: toCelObject({
      metadata: { name: "example-repo.foo.v1", namespace: "default" },
    }),
    repositories: new Map(repositories.map(r => [r.metadata.name, toCelObject(r)])),
  };
  return unroll(spec).map(ctx => desiredVariant(setName, renderPackageVariantSpec(ctx, inputs)));
}

const pairs = (variants: ReturnType<typeof render>) =>
  variants.map(v => `${v.spec.downstream?.repo}/${v.spec.downstream?.package}`);

describe("the documented PackageVariantSet examples", () => {
  it("base-ns three times in cluster-01, with the template's labels", () => {
    const variants = render("seed-namespaces.yaml", "example");
    expect(variants.map(v => v.name)).toEqual([
      "example-cluster-01-ns-1",
      "example-cluster-01-ns-2",
      "example-cluster-01-ns-3",
    ]);
    for (const [i, v] of variants.entries()) {
      expect(v.spec).toEqual({
        upstream: { repo: "platform-catalog", package: "base-ns", revision: "v1" },
        downstream: { repo: "cluster-01", package: `ns-${i + 1}` },
        labels: { "package-type": "namespace", org: "hr" },
        adoptionPolicy: "adoptNone",
        deletionPolicy: "delete",
      });
    }
  });

  it("the repository list table", () => {
    expect(pairs(render("seed-repository-list.yaml", "example"))).toEqual([
      "cluster-01/foo",
      "cluster-02/foo",
      "cluster-03/foo-a",
      "cluster-03/foo-b",
      "cluster-03/foo-c",
      "cluster-04/foo-a",
      "cluster-04/foo-b",
    ]);
  });

  it("the repository selector table", () => {
    expect(pairs(render("seed-repository-selector.yaml", "example"))).toEqual([
      "cluster-01/foo",
      "cluster-03/foo",
      "cluster-04/foo",
      "cluster-02/foo-a",
      "cluster-02/foo-b",
      "cluster-02/foo-c",
      "cluster-04/foo-a",
      "cluster-04/foo-b",
      "cluster-04/foo-c",
    ]);
  });

  it("labels and injector names computed from each repository", () => {
    const variants = render("seed-injectors.yaml", "example");
    expect(variants.map(v => [v.spec.downstream, v.spec.labels, v.spec.injectors])).toEqual([
      [{ repo: "cluster-01", package: "foo" }, { org: "hr" }, [{ name: "useast1-endpoints" }]],
      [{ repo: "cluster-03", package: "foo" }, { org: "hr" }, [{ name: "useast2-endpoints" }]],
      [{ repo: "cluster-04", package: "foo" }, { org: "hr" }, [{ name: "uswest1-endpoints" }]],
    ]);
  });
});
