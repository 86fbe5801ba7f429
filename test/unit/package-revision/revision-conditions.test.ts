// The PackageRevision's conditions come from one pure function of a step's outcome, each under
// the field manager that owns its type (lib/package-revision).
import {
  CONDITION_OWNERS,
  alreadyStated,
  conditionTypesOf,
  failureOutcome,
  revisionConditions,
  revisionFields,
  type ManagedConditions,
  type RevisionOutcome,
} from "../../../lib/package-revision";
import { PermanentError } from "../../../lib/controller/permanent-error";
import { GitStoreError } from "../../../lib/git";

const created = (over: Partial<Extract<RevisionOutcome, { kind: "created" }>> = {}) =>
  ({
    kind: "created",
    lifecycle: "Draft",
    verdict: { ok: true, functions: 2 },
    observedPrrResourceVersion: "7",
    fields: { creationSource: "clone", revision: 0 },
    ...over,
  }) as const;

const outcomes: RevisionOutcome[] = [
  { kind: "unchanged" },
  { kind: "failed", reason: "Failed", message: "m" },
  { kind: "sourceFailed", reason: "NotFound", message: "m" },
  { kind: "rendered", verdict: { ok: false, reason: "FunctionUnavailable", message: "m" } },
  { kind: "uncommittable", reason: "ContentTooLarge", message: "m" },
  created({ conflicts: ["a", "b"] }),
  { kind: "inGit", lifecycle: "Published", rendered: undefined, fields: { revision: 3 } },
];

const types = (c: ManagedConditions) => ({
  core: c.core?.map(x => x.type),
  render: c.render?.map(x => x.type),
});

describe("revisionConditions", () => {
  it("puts every condition under the manager that owns its type", () => {
    for (const outcome of outcomes) {
      const conditions = revisionConditions(outcome);
      for (const manager of ["core", "render"] as const)
        for (const c of conditions[manager] ?? []) expect(CONDITION_OWNERS[c.type]).toBe(manager);
    }
  });

  it("states a new draft: Rendered under render, Ready and Upgraded under core", () => {
    const conditions = revisionConditions(created({ conflicts: ["x changed on both sides"] }));
    expect(types(conditions)).toEqual({ core: ["Ready", "Upgraded"], render: ["Rendered"] });
    expect(conditions.render?.[0]).toMatchObject({
      status: "True",
      message: "rendered 2 function(s)",
    });
    expect(conditions.core?.[0]).toMatchObject({
      status: "True",
      reason: "Ready",
      message: "Draft in git",
    });
    expect(conditions.core?.[1]).toMatchObject({
      reason: "MergedWithConflicts",
      message: "1 conflict(s) resolved as kpt does: x changed on both sides",
    });
  });

  it("says a draft created to be proposed awaits it, and no Upgraded without an upgrade", () => {
    const conditions = revisionConditions(created({ lifecycle: "Proposed" }));
    expect(conditions.core).toEqual([
      { type: "Ready", status: "False", reason: "Pending", message: "awaiting Proposed" },
    ]);
  });

  it("keeps a revision whose files git could not take not Ready", () => {
    const rendered = { status: "False", reason: "UnsafeFileNames", message: "bad name" } as const;
    const outcome = {
      kind: "inGit",
      lifecycle: "Draft",
      rendered,
      fields: { revision: 0 },
    } as const;
    expect(revisionConditions(outcome).core).toEqual([{ type: "Ready", ...rendered }]);
    expect(revisionFields(outcome)).toEqual({ core: {} });
  });

  it("states files git cannot take under both managers, with the same reason", () => {
    const outcome = {
      kind: "uncommittable",
      reason: "ContentTooLarge",
      message: "too large",
      observedPrrResourceVersion: "9",
    } as const;
    expect(types(revisionConditions(outcome))).toEqual({ core: ["Ready"], render: ["Rendered"] });
    expect(revisionFields(outcome)).toEqual({
      render: { observedPrrResourceVersion: "9" },
      core: {},
    });
  });
});

describe("alreadyStated", () => {
  const outcome = {
    kind: "inGit",
    lifecycle: "Published",
    rendered: undefined,
    fields: { revision: 2 },
  } as const;
  const ready = {
    type: "Ready",
    status: "True",
    reason: "Ready",
    message: "Published in git",
    lastTransitionTime: "2025-01-15T10:00:00Z",
  } as const;

  it("is true only for the same revision, Ready and generation", () => {
    const status = { revision: 2, observedGeneration: 4, conditions: [ready] };
    expect(alreadyStated({ generation: 4, status }, outcome)).toBe(true);
    expect(alreadyStated({ generation: 5, status }, outcome)).toBe(false);
    expect(alreadyStated({ generation: 4, status: { ...status, revision: 1 } }, outcome)).toBe(
      false,
    );
    const pending = { ...ready, status: "False", reason: "Pending" } as const;
    expect(
      alreadyStated({ generation: 4, status: { ...status, conditions: [pending] } }, outcome),
    ).toBe(false);
  });
});

describe("failureOutcome", () => {
  it("states a permanent error and a git server that is down, nothing else", () => {
    expect(failureOutcome(new PermanentError("InvalidContent", "no Kptfile"))).toEqual({
      kind: "failed",
      reason: "InvalidContent",
      message: "no Kptfile",
    });
    expect(failureOutcome(new GitStoreError("Unavailable", "503 from the server"))).toMatchObject({
      kind: "failed",
      reason: "Unavailable",
    });
    expect(failureOutcome(new Error("etcd is down"))).toBeUndefined();
  });
});

it("gives each condition type one manager", () => {
  expect(conditionTypesOf("core")).toEqual(["Ready", "Upgraded"]);
  expect(conditionTypesOf("render")).toEqual(["Rendered"]);
});
