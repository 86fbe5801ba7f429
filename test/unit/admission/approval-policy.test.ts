import { PeprMutateRequest, PeprValidateRequest } from "pepr";
import type { PackageVariant, PackageVariantSet } from "../../../crd-types";
import {
  policyGrantProblems,
  stampPolicyGrants,
} from "../../../capabilities/admission/approval-policy";
import type { AccessSpec } from "../../support/memory-cluster/reviews";
import { testOperator, type TestOperator } from "../../support/operator-context";

// The approval policy's admission steps for a PackageVariantSet (the e2e test covers the
// variant and the revision): SubjectAccessReviews answer from a table of rights.
const APPROVE = "update porch.kpt.dev/packagerevisions/approval";
const rights: Record<string, string[]> = { alice: [APPROVE], bob: [] };
const mayAccess = (spec: AccessSpec) => {
  const a = spec.resourceAttributes;
  const key = `${a?.verb} ${a?.group}/${a?.resource}${a?.subresource ? `/${a.subresource}` : ""}`;
  return (rights[spec.user ?? ""] ?? []).includes(key);
};
const POLICY = "approval.nephio.org/policy";
const GRANT = "porch.kpt.dev/approval-policy-granted-by";

let t: TestOperator;
beforeEach(async () => {
  t = await testOperator({ cluster: { mayAccess } });
});
afterEach(() => t.close());

type Template = NonNullable<NonNullable<PackageVariantSet["spec"]>["targets"]>[number]["template"];
const set = (template: Template, revision = 1): PackageVariantSet => ({
  apiVersion: "config.porch.kpt.dev/v1alpha2",
  kind: "PackageVariantSet",
  metadata: { name: "s", namespace: "team-a" },
  spec: {
    upstream: { repo: "catalog", package: "app", revision },
    targets: [{ repositories: [{ name: "deploy" }], template }],
  },
});

type Policed = PackageVariantSet | PackageVariant;

function request(user: string, object: Policed, old?: Policed) {
  const kind = object.kind ?? "";
  const version = object.apiVersion?.split("/")[1] ?? "";
  const resource = `${kind.toLowerCase()}s`;
  return {
    uid: "1",
    kind: { group: "config.porch.kpt.dev", version, kind },
    resource: { group: "config.porch.kpt.dev", version, resource },
    name: object.metadata?.name,
    namespace: "team-a",
    operation: old ? "UPDATE" : "CREATE",
    userInfo: { username: user },
    object,
    ...(old && { oldObject: old }),
  } as never;
}

/** The mutating step, then the validating step's problems, as the API server runs them. */
async function admit<T extends Policed>(user: string, object: T, old?: T) {
  const mutate = new PeprMutateRequest<T>(request(user, structuredClone(object), old));
  await stampPolicyGrants(t.ctx, mutate);
  const problems = await policyGrantProblems(
    t.ctx,
    new PeprValidateRequest<T>(request(user, mutate.Raw, old)),
  );
  return { stored: mutate.Raw, problems };
}

const annotationsOf = (s: PackageVariantSet) => s.spec?.targets?.[0]?.template?.annotations;

describe("an approval policy on a set's template", () => {
  it("adds nothing to a template without a policy", async () => {
    const plain = set({ labels: { a: "b" } });
    const { stored, problems } = await admit("bob", plain, set({}));
    expect(problems).toEqual([]);
    expect(stored.spec?.targets?.[0]?.template).toEqual({ labels: { a: "b" } });
  });

  it("is denied to a user without the approval right", async () => {
    const { problems } = await admit("bob", set({ annotations: { [POLICY]: "always" } }));
    expect(problems).toEqual([
      `spec.targets[0].template.annotations[${POLICY}]: "bob" may not update packagerevisions/approval in namespace "team-a"; setting, changing or steering an approval policy is an approval`,
    ]);
  });

  it("records the approver checked, whatever grant was sent", async () => {
    const sent = set({ annotations: { [POLICY]: "initial", [GRANT]: "ceo" } });
    const { stored, problems } = await admit("alice", sent);
    expect(problems).toEqual([]);
    expect(annotationsOf(stored)).toEqual({ [POLICY]: "initial", [GRANT]: "alice" });
  });

  it("counts a policy an expression's fixed key sets, and checks its fixed value", async () => {
    const bad = set({ annotationExprs: [{ key: POLICY, value: "sometimes" }] });
    expect((await admit("alice", bad)).problems).toEqual([
      `spec.targets[0].template.annotations[${POLICY}]: unknown approval policy "sometimes": must be "initial" or "always"`,
    ]);
    const computed = set({ annotationExprs: [{ key: POLICY, valueExpr: "'always'" }] });
    expect((await admit("bob", computed)).problems).toHaveLength(1);
    const granted = await admit("alice", computed);
    expect(granted.problems).toEqual([]);
    expect(annotationsOf(granted.stored)).toEqual({ [GRANT]: "alice" });
  });

  it("never lets an expression write the grant", async () => {
    const forged = set({
      annotations: { [POLICY]: "always" },
      annotationExprs: [{ key: GRANT, value: "ceo" }],
    });
    expect((await admit("alice", forged)).problems).toEqual([
      `spec.targets[0].template.annotations[${GRANT}] is recorded by admission from the user whose approval right was checked; it cannot be set or changed`,
    ]);
  });

  it("needs the right to change a granted set, and keeps the grant for other requests", async () => {
    const granted = set({ annotations: { [POLICY]: "initial", [GRANT]: "alice" } });
    const steered = await admit("bob", set({ annotations: { [POLICY]: "initial" } }, 2), granted);
    expect(steered.problems).toHaveLength(1);
    const unchanged = await admit("bob", set({ annotations: { [POLICY]: "initial" } }), granted);
    expect(unchanged.problems).toEqual([]);
    expect(annotationsOf(unchanged.stored)?.[GRANT]).toBe("alice");
    const removed = await admit(
      "bob",
      set({ annotations: { other: "x", [GRANT]: "alice" } }),
      granted,
    );
    expect(removed.problems).toEqual([]);
    expect(annotationsOf(removed.stored)).toEqual({ other: "x" });
  });
});

describe("an approval policy on a variant", () => {
  const variant = (spec: PackageVariant["spec"]): PackageVariant => ({
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "PackageVariant",
    metadata: { name: "v", namespace: "team-a" },
    spec,
  });
  const spec = { upstream: { repo: "catalog", package: "app", revision: 1 } };

  it("adds nothing to a spec without annotations: an edit elsewhere changes no spec", async () => {
    const { stored, problems } = await admit("bob", variant(spec), variant(spec));
    expect(problems).toEqual([]);
    expect(stored.spec).toEqual(spec);
  });

  it("is stamped in spec.annotations, where the variant's drafts take it from", async () => {
    const { stored, problems } = await admit(
      "alice",
      variant({ ...spec, annotations: { [POLICY]: "always" } }),
    );
    expect(problems).toEqual([]);
    expect(stored.spec?.annotations).toEqual({ [POLICY]: "always", [GRANT]: "alice" });
  });
});
