import {
  DELAY_ANNOTATION,
  GRANT_ANNOTATION,
  POLICY_ANNOTATION,
  decideApproval,
  grantAfter,
  grantProblems,
  parseGoDuration,
  policyValueProblems,
  withStampedGrant,
  type ApprovalInput,
} from "../../../lib/packages/approval-policy";
import { recordAfter } from "../../../lib/packages/approval-record";

describe("the delay, as Go parses a duration", () => {
  it.each([
    ["0", 0],
    ["90s", 90_000],
    ["1h30m", 5_400_000],
    ["1.5s", 1500],
    ["300ms", 300],
    ["-5m", -300_000],
  ])("%s is %d ms", (value, ms) => expect(parseGoDuration(value)).toBe(ms));

  it.each(["", "5", "5 m", "m", "1d", "5m ", "1e3s"])("%j is not a duration", value =>
    expect(parseGoDuration(value)).toBeUndefined(),
  );
});

describe("policy values checked at admission", () => {
  it("names an unknown policy and a delay that is not one", () => {
    const problems = policyValueProblems(
      { [POLICY_ANNOTATION]: "sometimes", [DELAY_ANNOTATION]: "-1m" },
      "spec.annotations",
    );
    expect(problems).toEqual([
      `spec.annotations[${POLICY_ANNOTATION}]: unknown approval policy "sometimes": must be "initial" or "always"`,
      `spec.annotations[${DELAY_ANNOTATION}]: "-1m" is not a delay: a duration such as "90s" or "5m", from 0 to 24h`,
    ]);
  });

  it("refuses a delay over 24h and accepts both policies", () => {
    expect(policyValueProblems({ [DELAY_ANNOTATION]: "25h" }, "f")).toHaveLength(1);
    expect(policyValueProblems({ [POLICY_ANNOTATION]: "initial" }, "f")).toEqual([]);
    expect(policyValueProblems({ [POLICY_ANNOTATION]: "always" }, "f")).toEqual([]);
  });
});

describe("the grant admission records", () => {
  const initial = { [POLICY_ANNOTATION]: "initial" };
  const granted = { ...initial, [GRANT_ANNOTATION]: "approver" };

  it("makes whoever sets or changes a policy its grantor, once their right is checked", () => {
    expect(grantAfter({ old: undefined, next: initial, username: "u", byOperator: false })).toEqual(
      { grant: "u", review: true },
    );
    const always = { [POLICY_ANNOTATION]: "always", [GRANT_ANNOTATION]: "approver" };
    expect(grantAfter({ old: granted, next: always, username: "u", byOperator: false })).toEqual({
      grant: "u",
      review: true,
    });
    const delayed = { ...granted, [DELAY_ANNOTATION]: "1m" };
    expect(
      grantAfter({ old: granted, next: delayed, username: "u", byOperator: false }).review,
    ).toBe(true);
  });

  it("never takes the grant a client wrote", () => {
    const forged = { ...initial, [GRANT_ANNOTATION]: "ceo" };
    expect(grantAfter({ old: undefined, next: forged, username: "u", byOperator: false })).toEqual({
      grant: "u",
      review: true,
    });
    // Without a policy there is no grant, whatever was sent.
    expect(
      grantAfter({
        old: granted,
        next: { [GRANT_ANNOTATION]: "ceo" },
        username: "u",
        byOperator: false,
      }),
    ).toEqual({ grant: undefined, review: false });
    expect(grantProblems("u", forged, "metadata.annotations")).toEqual([
      `metadata.annotations[${GRANT_ANNOTATION}] is recorded by admission from the user whose approval right was checked; it cannot be set or changed`,
    ]);
  });

  it("keeps the stored grant for an edit that leaves the policy alone, unless it steers", () => {
    const edit = { ...granted, [GRANT_ANNOTATION]: "ceo", other: "x" };
    expect(grantAfter({ old: granted, next: edit, username: "u", byOperator: false })).toEqual({
      grant: "approver",
      review: false,
    });
    expect(
      grantAfter({ old: granted, next: edit, username: "u", byOperator: false, steers: true }),
    ).toEqual({ grant: "u", review: true });
  });

  it("keeps a policy without a grant as it came: an edit does not need the right, nor grant", () => {
    expect(grantAfter({ old: initial, next: initial, username: "u", byOperator: false })).toEqual({
      grant: undefined,
      review: false,
    });
  });

  it("keeps what the operator writes: it copies a grant admission stamped", () => {
    expect(grantAfter({ old: undefined, next: granted, username: "op", byOperator: true })).toEqual(
      {
        grant: "approver",
        review: false,
      },
    );
  });

  it("keeps a set's stamped grant whatever a computed key rendered", () => {
    expect(withStampedGrant({ [GRANT_ANNOTATION]: "ceo", a: "b" }, undefined)).toEqual({ a: "b" });
    expect(withStampedGrant({ [GRANT_ANNOTATION]: "ceo" }, granted)).toEqual({
      [GRANT_ANNOTATION]: "approver",
    });
  });
});

describe("the approval record of a policy's moves", () => {
  const stored = { [POLICY_ANNOTATION]: "initial", [GRANT_ANNOTATION]: "approver" };
  it("records the operator as proposer, and as approver on behalf of the grantor", () => {
    expect(recordAfter("Draft", "Proposed", "op", true, stored, "approver")).toEqual({
      proposedBy: "op",
    });
    expect(
      recordAfter(
        "Proposed",
        "Published",
        "op",
        true,
        { ...stored, "porch.kpt.dev/proposed-by": "op" },
        "approver",
      ),
    ).toEqual({ proposedBy: "op", approvedBy: "op on behalf of approver" });
    // Without a grant the operator's writes keep the record, as before.
    expect(recordAfter("Proposed", "Published", "op", true, stored)).toEqual({});
  });
});

describe("what the policy does with a revision", () => {
  const base: ApprovalInput = {
    lifecycle: "Draft",
    annotations: { [POLICY_ANNOTATION]: "initial", [GRANT_ANNOTATION]: "approver" },
    createdMs: 1_000_000,
    nowMs: 1_000_000,
    ready: true,
    unmetGates: [],
    ownerReady: true,
    publishedExists: false,
  };

  it("proposes a ready draft, then approves the proposal", () => {
    expect(decideApproval(base)).toEqual({ action: "propose", grantor: "approver" });
    expect(decideApproval({ ...base, lifecycle: "Proposed" })).toEqual({
      action: "approve",
      grantor: "approver",
    });
  });

  it("leaves published and unannotated revisions alone", () => {
    expect(decideApproval({ ...base, lifecycle: "Published" })).toEqual({ action: "none" });
    expect(decideApproval({ ...base, annotations: {} })).toEqual({ action: "none" });
  });

  it("refuses a policy without a grant, whatever else holds", () => {
    const decision = decideApproval({ ...base, annotations: { [POLICY_ANNOTATION]: "always" } });
    expect(decision).toMatchObject({ action: "refuse", reason: "NoGrant" });
  });

  it("publishes under `initial` only the package's first revision; `always` every one", () => {
    expect(decideApproval({ ...base, publishedExists: true })).toMatchObject({
      action: "refuse",
      reason: "PolicyNotMet",
    });
    const always = { [POLICY_ANNOTATION]: "always", [GRANT_ANNOTATION]: "approver" };
    expect(decideApproval({ ...base, annotations: always, publishedExists: true })).toMatchObject({
      action: "propose",
    });
  });

  it("waits for the owning variant, readiness and gates", () => {
    expect(decideApproval({ ...base, ownerReady: false })).toMatchObject({
      reason: "VariantNotReady",
    });
    expect(decideApproval({ ...base, ready: false })).toMatchObject({ reason: "NotReady" });
    expect(decideApproval({ ...base, unmetGates: ["qa"] })).toMatchObject({
      reason: "GatesNotMet",
      message: "readiness gates not met: qa",
    });
    expect(decideApproval({ ...base, ownerReady: undefined })).toMatchObject({ action: "propose" });
  });

  it("waits out the delay from creation, to a fixed instant", () => {
    const annotations = { ...base.annotations, [DELAY_ANNOTATION]: "2m" };
    const waiting = decideApproval({ ...base, annotations, nowMs: base.createdMs + 30_000 });
    expect(waiting).toEqual({
      action: "wait",
      reason: "Delayed",
      message: `delay time not met: approvable from ${new Date(base.createdMs + 120_000).toISOString()}`,
      requeueAfterMs: 90_000,
    });
    expect(decideApproval({ ...base, annotations, nowMs: base.createdMs + 120_000 })).toMatchObject(
      { action: "propose" },
    );
  });
});
