import { PeprValidateRequest } from "pepr";
import type { PackageVariant } from "../../../crd-types";
import { readProblems } from "../../../capabilities/admission/requests";
import { packageVariantReads } from "../../../lib/validation";
import { ConfigMapKind } from "../../../lib/cluster/kinds";
import type { AccessSpec } from "../../support/memory-cluster/reviews";
import { testOperator, type TestOperator } from "../../support/operator-context";

// Admission asks one SubjectAccessReview per distinct question (README “Security model”): a spec
// naming the same object a hundred times costs the API server one review, not a hundred, and
// every field that asked is still answered.
const asked: string[] = [];
const mayAccess = (spec: AccessSpec) => {
  asked.push(`${spec.resourceAttributes?.verb} ${spec.resourceAttributes?.name}`);
  return spec.resourceAttributes?.name === "open";
};

let t: TestOperator;
beforeEach(async () => {
  asked.length = 0;
  t = await testOperator({ cluster: { mayAccess } });
  t.cluster.serve(ConfigMapKind);
});
afterEach(() => t.close());

const policy = {
  allowed: [{ group: "", version: "v1", kind: "ConfigMap" }],
  clusterScoped: new Set<string>(),
};

function request(pv: PackageVariant) {
  return new PeprValidateRequest<PackageVariant>({
    uid: "1",
    kind: { group: "config.porch.kpt.dev", version: "v1alpha1", kind: "PackageVariant" },
    resource: { group: "config.porch.kpt.dev", version: "v1alpha1", resource: "packagevariants" },
    name: "v",
    namespace: "team-a",
    operation: "CREATE",
    userInfo: { username: "bob" },
    object: pv,
  } as never);
}

it("asks each distinct question once and answers every field that asked it", async () => {
  const names = [...Array(100).keys()].map(i => (i % 2 === 0 ? "db" : "open"));
  const pv = {
    metadata: { name: "v", namespace: "team-a" },
    spec: { injectors: names.map(name => ({ kind: "ConfigMap", name })) },
  } as PackageVariant;

  const problems = await readProblems(t.ctx, request(pv), packageVariantReads(pv.spec, policy));

  expect(asked.sort()).toEqual(["get db", "get open"]);
  expect(problems).toHaveLength(50);
  expect(problems[0]).toBe(
    'spec.injectors[0]: "bob" may not get configmaps "db" in namespace "team-a"; the operator reads for an object only what whoever applies it may get themselves',
  );
  expect(problems[49]).toMatch(/^spec\.injectors\[98\]: /);
});
