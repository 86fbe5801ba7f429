import { PackageRevision, PackageRevisionKind } from "../../../crd-types";
import { reconcileApprovalPolicy } from "../../../capabilities/package-revision/approval-policy";
import { testOperator, type TestOperator } from "../../support/operator-context";

// The PackageRevision controller's approval-policy step against a MemoryCluster and a clock
// that moves only when the test moves it.
const POLICY = "approval.nephio.org/policy";
const GRANT = "porch.kpt.dev/approval-policy-granted-by";

let t: TestOperator;
beforeEach(async () => {
  t = await testOperator();
});
afterEach(() => t.close());

/** A revision git holds at `lifecycle`, Ready on its generation, with `annotations`. */
async function stored(
  workspace: string,
  lifecycle: NonNullable<PackageRevision["spec"]>["lifecycle"],
  annotations: Record<string, string>,
): Promise<PackageRevision> {
  const ref = { namespace: "team-a", name: `deploy.app.${workspace}` };
  const made = await t.cluster.create(PackageRevisionKind, {
    apiVersion: "porch.kpt.dev/v1alpha2",
    kind: "PackageRevision",
    metadata: { ...ref, annotations },
    spec: { packageName: "app", repository: "deploy", workspaceName: workspace, lifecycle },
  });
  return readyInGit(made as PackageRevision);
}

/** What the lifecycle step writes once git holds the revision's lifecycle. */
function readyInGit(pr: PackageRevision): Promise<PackageRevision> {
  const ready = {
    type: "Ready",
    status: "True",
    reason: "Ready",
    message: `${pr.spec?.lifecycle} in git`,
    observedGeneration: pr.metadata?.generation,
    lastTransitionTime: t.clock.now().toISOString(),
  };
  const conditions = [...(pr.status?.conditions ?? []).filter(c => c.type !== "Ready"), ready];
  const ref = { namespace: "team-a", name: pr.metadata?.name ?? "" };
  return t.cluster.patch(
    PackageRevisionKind,
    ref,
    { merge: { status: { conditions } } },
    {
      status: true,
    },
  );
}

const current = async (pr: PackageRevision) =>
  (await t.cluster.get(PackageRevisionKind, {
    namespace: "team-a",
    name: pr.metadata?.name ?? "",
  })) as PackageRevision;
const policyCondition = (pr: PackageRevision) =>
  pr.status?.conditions?.find(c => c.type === "ApprovalPolicy");

describe("the approval-policy step", () => {
  it("waits out the delay, then proposes, then publishes: one move per reconcile", async () => {
    let pr = await stored("v1", "Draft", {
      [POLICY]: "always",
      "approval.nephio.org/delay": "2m",
      [GRANT]: "alice",
    });
    expect(await reconcileApprovalPolicy(t.ctx, pr)).toEqual({ requeueAfterMs: 120_000 });
    pr = await current(pr);
    expect(policyCondition(pr)).toMatchObject({ status: "False", reason: "Delayed" });
    expect(pr.spec?.lifecycle).toBe("Draft");

    t.clock.advance(120_000);
    await reconcileApprovalPolicy(t.ctx, pr);
    pr = await current(pr);
    expect(pr.spec?.lifecycle).toBe("Proposed");
    // Not before git holds the proposal (Ready on the new generation).
    await reconcileApprovalPolicy(t.ctx, pr);
    expect((await current(pr)).spec?.lifecycle).toBe("Proposed");

    pr = await readyInGit(await current(pr));
    await reconcileApprovalPolicy(t.ctx, pr);
    pr = await current(pr);
    expect(pr.spec?.lifecycle).toBe("Published");
    expect(policyCondition(pr)).toMatchObject({ status: "True", reason: "Published" });
    expect(policyCondition(pr)?.message).toMatch(/ on behalf of alice$/);
  });

  it("leaves a draft of a package that has a published revision to a person under `initial`", async () => {
    await stored("v1", "Published", {});
    const draft = await stored("v2", "Draft", { [POLICY]: "initial", [GRANT]: "alice" });
    expect(await reconcileApprovalPolicy(t.ctx, draft)).toBeUndefined();
    const pr = await current(draft);
    expect(pr.spec?.lifecycle).toBe("Draft");
    expect(policyCondition(pr)).toMatchObject({ status: "False", reason: "PolicyNotMet" });
  });

  it("approves nothing without a grant", async () => {
    const draft = await stored("v1", "Draft", { [POLICY]: "always" });
    await reconcileApprovalPolicy(t.ctx, draft);
    const pr = await current(draft);
    expect(pr.spec?.lifecycle).toBe("Draft");
    expect(policyCondition(pr)).toMatchObject({ status: "False", reason: "NoGrant" });
  });
});
