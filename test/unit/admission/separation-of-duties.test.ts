import { PeprMutateRequest, PeprValidateRequest } from "pepr";
import type { PackageRevision, PackageVariant } from "../../../crd-types";
import { validatePackageRevisionRequest } from "../../../capabilities/admission/package-revisions";
import { stampApprovalRecord } from "../../../capabilities/admission/approval-record";
import { readProblems } from "../../../capabilities/admission/requests";
import { packageVariantReads } from "../../../lib/validation";
import { ConfigMapKind, NamespaceKind } from "../../../lib/cluster/kinds";
import type { AccessSpec } from "../../support/memory-cluster/reviews";
import { testOperator, type TestOperator } from "../../support/operator-context";

// The admission steps of issue 27 against a MemoryCluster whose SubjectAccessReviews answer
// from a table of rights: who may approve, who may read ConfigMaps.
const rights: Record<string, string[]> = {
  alice: ["update porch.kpt.dev/packagerevisions/approval"],
  bob: [],
  lead: ["update porch.kpt.dev/packagerevisions/approval"],
};
const mayAccess = (spec: AccessSpec) => {
  const a = spec.resourceAttributes;
  const key = `${a?.verb} ${a?.group}/${a?.resource}${a?.subresource ? `/${a.subresource}` : ""}`;
  return (rights[spec.user ?? ""] ?? []).includes(key);
};

let t: TestOperator;
beforeEach(async () => {
  t = await testOperator({ cluster: { mayAccess } });
});
afterEach(() => t.close());

const revision = (lifecycle: string, annotations?: Record<string, string>) =>
  ({
    apiVersion: "porch.kpt.dev/v1alpha2",
    kind: "PackageRevision",
    metadata: { name: "r.p.ws", namespace: "team-a", ...(annotations && { annotations }) },
    spec: { packageName: "p", repository: "r", workspaceName: "ws", lifecycle },
  }) as PackageRevision;

function request<T>(user: string, object: T, old?: T) {
  return {
    uid: "1",
    kind: { group: "porch.kpt.dev", version: "v1alpha2", kind: "PackageRevision" },
    resource: { group: "porch.kpt.dev", version: "v1alpha2", resource: "packagerevisions" },
    name: "r.p.ws",
    namespace: "team-a",
    operation: old ? "UPDATE" : "CREATE",
    userInfo: { username: user },
    object,
    ...(old && { oldObject: old }),
  } as never;
}

/** The mutating step, then the validating step, as the API server runs them. */
async function admit(user: string, object: PackageRevision, old?: PackageRevision) {
  const mutate = new PeprMutateRequest<PackageRevision>(
    request(user, structuredClone(object), old),
  );
  await stampApprovalRecord(t.ctx, mutate);
  const validated = await validatePackageRevisionRequest(
    t.ctx,
    new PeprValidateRequest<PackageRevision>(request(user, mutate.Raw, old)),
  );
  return { stored: mutate.Raw, answer: validated };
}

describe("approval is its own right", () => {
  it("denies approving without update on packagerevisions/approval", async () => {
    const proposed = revision("Proposed", { "porch.kpt.dev/proposed-by": "lead" });
    const { answer } = await admit("bob", revision("Published"), proposed);
    expect(answer.allowed).toBe(false);
    expect(answer.statusMessage).toBe(
      'spec.lifecycle: "bob" may not update packagerevisions/approval in namespace "team-a"; moving a revision from Proposed to Published is an approval',
    );
  });

  it("records the proposer and the approver from the authenticated user", async () => {
    const proposal = await admit("bob", revision("Proposed"), revision("Draft"));
    expect(proposal.answer.allowed).toBe(true);
    expect(proposal.stored.metadata?.annotations?.["porch.kpt.dev/proposed-by"]).toBe("bob");
    const sent = revision("Published", {
      "porch.kpt.dev/proposed-by": "bob",
      "porch.kpt.dev/approved-by": "ceo", // chosen by the client: written over
    });
    const { stored, answer } = await admit("alice", sent, proposal.stored);
    expect(answer.allowed).toBe(true);
    expect(stored.metadata?.annotations?.["porch.kpt.dev/approved-by"]).toBe("alice");
  });

  it("refuses a record that did not come from the mutating step", async () => {
    const proposed = revision("Proposed", { "porch.kpt.dev/proposed-by": "bob" });
    const forged = revision("Proposed", { "porch.kpt.dev/proposed-by": "alice" });
    const answer = await validatePackageRevisionRequest(
      t.ctx,
      new PeprValidateRequest<PackageRevision>(request("bob", forged, proposed)),
    );
    expect(answer.statusMessage).toBe(
      "metadata.annotations[porch.kpt.dev/proposed-by] is recorded by admission from the authenticated user; it cannot be set or changed",
    );
  });

  it("lets the proposer take back a proposal without the approval right", async () => {
    const proposed = revision("Proposed", { "porch.kpt.dev/proposed-by": "bob" });
    expect((await admit("bob", revision("Draft"), proposed)).answer.allowed).toBe(true);
  });

  it("forbids approving one's own proposal where the namespace opts in", async () => {
    const proposed = revision("Proposed", { "porch.kpt.dev/proposed-by": "lead" });
    expect((await admit("lead", revision("Published"), proposed)).answer.allowed).toBe(true);
    await t.cluster.create(NamespaceKind, {
      metadata: { name: "team-a", labels: { "porch.kpt.dev/forbid-self-approval": "true" } },
    });
    const { answer } = await admit("lead", revision("Published"), proposed);
    expect(answer.statusMessage).toBe(
      `spec.lifecycle: "lead" proposed this revision and may not approve it: approving one's own proposal is forbidden in namespace "team-a"`,
    );
  });
});

describe("the requester's own rights for what the operator reads", () => {
  it("denies an injector naming a ConfigMap the requester may not get", async () => {
    const pv = {
      metadata: { name: "v", namespace: "team-a" },
      spec: { injectors: [{ kind: "ConfigMap", name: "db" }] },
    } as PackageVariant;
    const policy = {
      allowed: [{ group: "", version: "v1", kind: "ConfigMap" }],
      clusterScoped: new Set<string>(),
    };
    const req = new PeprValidateRequest<PackageVariant>(request("bob", pv));
    // A kind not served yet has nothing to read and no resource to ask about.
    expect(await readProblems(t.ctx, req, packageVariantReads(pv.spec, policy))).toEqual([]);
    t.cluster.serve(ConfigMapKind);
    expect(await readProblems(t.ctx, req, packageVariantReads(pv.spec, policy))).toEqual([
      'spec.injectors[0]: "bob" may not get configmaps "db" in namespace "team-a"; the operator reads for an object only what whoever applies it may get themselves',
    ]);
    rights.bob = ["get /configmaps"];
    // The denial is kept a few seconds (PORCH_PEPR_ACCESS_REVIEW_CACHE_SECONDS), then asked again.
    expect(await readProblems(t.ctx, req, packageVariantReads(pv.spec, policy))).toHaveLength(1);
    t.clock.advance(5_000);
    expect(await readProblems(t.ctx, req, packageVariantReads(pv.spec, policy))).toEqual([]);
    rights.bob = [];
  });

  it("denies, rather than admits unchecked, when discovery fails for another reason than an unserved kind", async () => {
    const pv = {
      metadata: { name: "v", namespace: "team-a" },
      spec: { injectors: [{ kind: "ConfigMap", name: "db" }] },
    } as PackageVariant;
    const policy = {
      allowed: [{ group: "", version: "v1", kind: "ConfigMap" }],
      clusterScoped: new Set<string>(),
    };
    const req = new PeprValidateRequest<PackageVariant>(request("bob", pv));
    const failing = jest
      .spyOn(t.ctx.discovery, "resolveKind")
      .mockRejectedValue(new Error("the server is currently unable to handle the request"));
    try {
      await expect(readProblems(t.ctx, req, packageVariantReads(pv.spec, policy))).rejects.toThrow(
        "unable to handle the request",
      );
    } finally {
      failing.mockRestore();
    }
  });
});
