import { LIFECYCLES, type Lifecycle } from "../../../lib/git/types";
import {
  copySourceProblem,
  isFurtherAlong,
  LIFECYCLE_TRANSITIONS,
  transitionProblem,
  unmetReadinessGates,
} from "../../../lib/package-revision";

describe("the one lifecycle transition table", () => {
  it("allows Draft ⇄ Proposed, Proposed → Published and Published ⇄ DeletionProposed, nothing else", () => {
    const moves = LIFECYCLES.flatMap(from =>
      LIFECYCLE_TRANSITIONS[from].map(to => `${from}→${to}`),
    );
    expect(moves.sort()).toEqual(
      [
        "Draft→Proposed",
        "Proposed→Draft",
        "Proposed→Published",
        "Published→DeletionProposed",
        "DeletionProposed→Published",
      ].sort(),
    );
  });

  it("is what transitionProblem answers for every pair of lifecycles", () => {
    for (const from of LIFECYCLES) {
      for (const to of LIFECYCLES) {
        const allowed = from === to || LIFECYCLE_TRANSITIONS[from].includes(to);
        expect([from, to, transitionProblem(from, to) === undefined]).toEqual([from, to, allowed]);
      }
    }
  });
});

describe("lifecycle transitions", () => {
  it.each<[Lifecycle, Lifecycle, string | undefined]>([
    ["Draft", "Draft", undefined],
    ["Draft", "Proposed", undefined],
    ["Proposed", "Draft", undefined],
    ["Proposed", "Published", undefined],
    ["Published", "DeletionProposed", undefined],
    ["DeletionProposed", "Published", undefined],
    ["Draft", "Published", "a Draft must be Proposed before it can be Published"],
    [
      "Published",
      "Draft",
      "a Published revision cannot go back to Draft: create a new draft from it (spec.source.copyFrom)",
    ],
    [
      "Published",
      "Proposed",
      "a Published revision cannot go back to Proposed: create a new draft from it (spec.source.copyFrom)",
    ],
    [
      "DeletionProposed",
      "Draft",
      "a DeletionProposed revision cannot go back to Draft: create a new draft from it (spec.source.copyFrom)",
    ],
    [
      "Draft",
      "DeletionProposed",
      "only a Published revision can be proposed for deletion; delete this Draft revision instead",
    ],
    [
      "Proposed",
      "DeletionProposed",
      "only a Published revision can be proposed for deletion; delete this Proposed revision instead",
    ],
  ])("%s → %s", (from, to, problem) => {
    expect(transitionProblem(from, to)).toBe(problem);
  });

  it("orders lifecycles", () => {
    expect(isFurtherAlong("Published", "Proposed")).toBe(true);
    expect(isFurtherAlong("Draft", "Proposed")).toBe(false);
  });

  it("finds unmet readiness gates in conditions and Kptfile conditions", () => {
    expect(
      unmetReadinessGates({
        readinessGates: [{ conditionType: "a" }, { conditionType: "b" }, { conditionType: "c" }],
        conditions: [{ type: "a", status: "True" }],
        packageConditions: [{ type: "b", status: "False" }],
      }),
    ).toEqual(["b", "c"]);
    expect(unmetReadinessGates({})).toEqual([]);
  });
});

describe("copyFrom needs a published source", () => {
  const source = (lifecycle: string) => ({ metadata: { name: "b.app.v1" }, spec: { lifecycle } });

  it.each(["Draft", "Proposed"])("refuses a %s source, naming it", lifecycle => {
    expect(copySourceProblem(source(lifecycle))).toBe(
      `copyFrom "b.app.v1" is ${lifecycle}: only a Published revision can be copied (publish it first)`,
    );
  });

  it.each(["Published", "DeletionProposed"])("accepts a %s source", lifecycle => {
    expect(copySourceProblem(source(lifecycle))).toBeUndefined();
  });
});
