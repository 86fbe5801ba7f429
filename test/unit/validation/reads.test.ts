import type { PackageVariantSetSpec, PackageVariantSpec } from "../../../crd-types";
import {
  approvalProblem,
  packageVariantReads,
  packageVariantSetReads,
  readUseProblem,
  type ReadableKindPolicy,
} from "../../../lib/validation";
import { isApprovalMove } from "../../../lib/package-revision";

const configMap = { group: "", version: "v1", kind: "ConfigMap" };
const repository = { group: "config.porch.kpt.dev", version: "v1alpha1", kind: "Repository" };
const policy: ReadableKindPolicy = { allowed: [configMap, repository], clusterScoped: new Set() };

describe("what the operator reads on a requester's behalf", () => {
  it("a PackageVariant's injectors: get on each named object of every kind that fits", () => {
    const spec = {
      injectors: [{ kind: "ConfigMap", name: "db" }, { name: "any-kind" }],
    } as PackageVariantSpec;
    expect(packageVariantReads(spec, policy)).toEqual([
      { field: "spec.injectors[0]", verb: "get", kind: configMap, name: "db" },
      { field: "spec.injectors[1]", verb: "get", kind: configMap, name: "any-kind" },
      { field: "spec.injectors[1]", verb: "get", kind: repository, name: "any-kind" },
    ]);
    expect(packageVariantReads({} as PackageVariantSpec, policy)).toEqual([]);
  });

  it("a PackageVariantSet's selectors (list), named repositories and template injectors", () => {
    const spec = {
      targets: [
        {
          objectSelector: { apiVersion: "v1", kind: "ConfigMap", matchLabels: { a: "b" } },
          template: { injectors: [{ kind: "ConfigMap", nameExpr: "target.name" }] },
        },
        { repositorySelector: {}, repositories: [{ name: "edge" }] },
      ],
    } as PackageVariantSetSpec;
    expect(packageVariantSetReads(spec, policy)).toEqual([
      { field: "spec.targets[0].objectSelector", verb: "list", kind: configMap },
      // A computed name: any object of the kind may be read.
      { field: "spec.targets[0].template.injectors[0]", verb: "get", kind: configMap },
      { field: "spec.targets[1].repositorySelector", verb: "list", kind: repository },
      { field: "spec.targets[1].repositories[0]", verb: "get", kind: repository, name: "edge" },
    ]);
  });

  it("names the field, the user, the verb and the resource in a denial", () => {
    const user = { username: "alice" };
    expect(
      readUseProblem(
        { field: "spec.injectors[0]", verb: "get", kind: configMap, name: "db" },
        "configmaps",
        "team-a",
        user,
      ),
    ).toBe(
      'spec.injectors[0]: "alice" may not get configmaps "db" in namespace "team-a"; the operator reads for an object only what whoever applies it may get themselves',
    );
    expect(
      readUseProblem(
        { field: "spec.targets[0].repositorySelector", verb: "list", kind: repository },
        "repositories",
        "team-a",
        user,
      ),
    ).toContain('"alice" may not list repositories.config.porch.kpt.dev in namespace "team-a"');
  });
});

describe("approval moves (kptdev/porch's approval subresource)", () => {
  it.each([
    ["Proposed", "Published", true],
    ["Proposed", "Draft", true],
    ["DeletionProposed", "Published", true],
    ["Draft", "Proposed", false],
    ["Published", "DeletionProposed", false],
    ["Proposed", "Proposed", false],
  ] as const)("%s → %s is an approval: %s", (from, to, approval) => {
    expect(isApprovalMove(from, to)).toBe(approval);
  });

  it("a denial names packagerevisions/approval", () => {
    expect(approvalProblem("Proposed", "Published", { username: "bob" }, "team-a")).toBe(
      'spec.lifecycle: "bob" may not update packagerevisions/approval in namespace "team-a"; moving a revision from Proposed to Published is an approval',
    );
  });
});
