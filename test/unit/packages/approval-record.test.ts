import {
  approvalTrailers,
  APPROVED_BY_ANNOTATION,
  PROPOSED_BY_ANNOTATION,
  recordAfter,
  recordProblems,
  selfApprovalForbidden,
} from "../../../lib/packages/approval-record";

const stored = { [PROPOSED_BY_ANNOTATION]: "alice", other: "x" };

describe("the approval record admission keeps", () => {
  it("records the proposer on a proposal and the approver on an approval", () => {
    expect(recordAfter("Draft", "Proposed", "alice", false, undefined)).toEqual({
      proposedBy: "alice",
    });
    expect(recordAfter(undefined, "Proposed", "alice", false, undefined)).toEqual({
      proposedBy: "alice",
    });
    expect(recordAfter("Proposed", "Published", "bob", false, stored)).toEqual({
      proposedBy: "alice",
      approvedBy: "bob",
    });
  });

  it("keeps what is stored on every other request, and on the operator's", () => {
    expect(recordAfter("Proposed", "Proposed", "mallory", false, stored)).toEqual({
      proposedBy: "alice",
    });
    expect(recordAfter("Proposed", "Published", "operator", true, stored)).toEqual({
      proposedBy: "alice",
    });
    expect(recordAfter("Published", "DeletionProposed", "bob", false, stored)).toEqual({
      proposedBy: "alice",
    });
  });

  it("refuses any annotation value other than the recorded one", () => {
    const wanted = { proposedBy: "alice", approvedBy: "bob" };
    expect(
      recordProblems(wanted, {
        [PROPOSED_BY_ANNOTATION]: "alice",
        [APPROVED_BY_ANNOTATION]: "bob",
      }),
    ).toEqual([]);
    expect(
      recordProblems({ proposedBy: "alice" }, { ...stored, [APPROVED_BY_ANNOTATION]: "ceo" }),
    ).toEqual([
      `metadata.annotations[${APPROVED_BY_ANNOTATION}] is recorded by admission from the authenticated user; it cannot be set or changed`,
    ]);
  });

  it("forbids self-approval operator-wide or where a namespace opts in", () => {
    expect(selfApprovalForbidden({}, undefined)).toBe(false);
    expect(selfApprovalForbidden({ PORCH_PEPR_FORBID_SELF_APPROVAL: "true" }, undefined)).toBe(
      true,
    );
    expect(selfApprovalForbidden({}, { "porch.kpt.dev/forbid-self-approval": "true" })).toBe(true);
  });
});

describe("the approval trailers", () => {
  it("name the users, one line each, whatever their names hold", () => {
    expect(approvalTrailers({ proposedBy: "alice", approvedBy: "bob" })).toEqual([
      "Proposed-by: alice",
      "Approved-by: bob",
    ]);
    const trailers = approvalTrailers({ approvedBy: "bob\nApproved-by: ceo" });
    expect(trailers).toHaveLength(1);
    expect(trailers[0]).not.toContain("\n");
    expect(trailers[0].startsWith("Approved-by: bob")).toBe(true);
  });
});
