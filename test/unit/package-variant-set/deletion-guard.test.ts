import type { PackageVariantSet } from "../../../crd-types";
import {
  buildStatus,
  deletionLimit,
  emptyOutcome,
  guardDeletions,
} from "../../../lib/package-variant-set";

describe("deletionLimit", () => {
  it("takes a number as is and a percentage rounded down, but at least 1", () => {
    expect(deletionLimit(0, 10)).toBe(0);
    expect(deletionLimit(3, 10)).toBe(3);
    expect(deletionLimit("25%", 10)).toBe(2);
    expect(deletionLimit("25%", 3)).toBe(1);
    expect(deletionLimit("0%", 3)).toBe(1);
    expect(deletionLimit("100%", 7)).toBe(7);
  });

  it("counts a value admission would refuse as the default, never as no limit", () => {
    expect(deletionLimit("lots", 100)).toBe(25);
    expect(deletionLimit(-1, 100)).toBe(25);
  });
});

const variant = (name: string, deleting = false) => ({
  metadata: { name, ...(deleting && { deletionTimestamp: new Date("2026-01-01T00:00:00Z") }) },
});
const ten = Array.from({ length: 10 }, (_, i) => variant(`v${i}`));
const set = (generation: number, extra: Partial<PackageVariantSet> = {}): PackageVariantSet =>
  ({
    metadata: { name: "s", generation },
    spec: { targets: [{ repositorySelector: {} }] },
    status: { observedGeneration: 4 },
    ...extra,
  }) as PackageVariantSet;

describe("guardDeletions", () => {
  it("allows deletions up to the limit (25% of 10 is 2)", () => {
    expect(guardDeletions(set(4), ten, ten.slice(0, 2))).toEqual({ allowed: true });
  });

  it("holds every deletion beyond the limit and says how many, which and why", () => {
    const decision = guardDeletions(set(5), ten, ten.slice(0, 8));
    expect(decision.allowed).toBe(false);
    expect(decision.status).toMatchObject({
      generation: 5,
      count: 8,
      of: 10,
      limit: 2,
      packageVariants: ["v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"],
      reason: "the set's spec changed (generation 4 to 5)",
    });
  });

  it("says a selector's objects changed when the spec did not", () => {
    const decision = guardDeletions(set(4), ten, ten.slice(0, 8));
    expect(decision.status?.reason).toBe(
      "the spec is unchanged at generation 4; the objects selected by spec.targets[0].repositorySelector changed",
    );
  });

  it("releases exactly the held deletions once their generation is acknowledged", () => {
    const held = guardDeletions(set(5), ten, ten.slice(0, 8)).status;
    // Acknowledging is a spec change: the set is at generation 6 then.
    const acked = (deletionGuard: object) =>
      set(6, {
        spec: { targets: [], deletionGuard },
        status: { observedGeneration: 5, deletionGuard: held },
      });
    expect(guardDeletions(acked({ acknowledgedGeneration: 5 }), ten, ten.slice(0, 8)).allowed).toBe(
      true,
    );
    expect(guardDeletions(acked({ acknowledgedGeneration: 4 }), ten, ten.slice(0, 8)).allowed).toBe(
      false,
    );
    // A different set of deletions is a new hold, at the current generation.
    const other = guardDeletions(acked({ acknowledgedGeneration: 5 }), ten, ten.slice(0, 9));
    expect(other).toMatchObject({ allowed: false, status: { generation: 6, count: 9 } });
  });

  it("neither counts nor holds variants already being deleted", () => {
    const going = [...ten.slice(0, 7).map(v => variant(v.metadata.name, true)), ...ten.slice(7)];
    expect(guardDeletions(set(5), going, going.slice(0, 8)).allowed).toBe(true);
  });

  it("holds every deletion with maxDeletions 0", () => {
    const s = set(5, { spec: { deletionGuard: { maxDeletions: 0 } } });
    expect(guardDeletions(s, ten, ten.slice(0, 1)).allowed).toBe(false);
  });
});

describe("the set's status with held deletions", () => {
  it("has status.deletionGuard and a DeletionsHeld condition naming the generation to acknowledge", () => {
    const s = set(5);
    const outcome = {
      ...emptyOutcome(),
      deletionsHeld: guardDeletions(s, ten, ten.slice(0, 8)).status,
    };
    const status = buildStatus(s, outcome, new Date(0));
    expect(status.deletionGuard?.count).toBe(8);
    const held = status.conditions?.find(c => c.type === "DeletionsHeld");
    expect(held).toMatchObject({ status: "True", reason: "TooManyDeletions" });
    expect(held?.message).toMatch(
      /^would delete 8 of 10 PackageVariants, more than the 2 .*set to 5$/,
    );
    const cleared = buildStatus({ ...s, status }, emptyOutcome(), new Date(0));
    expect(cleared.deletionGuard).toBeUndefined();
    expect(cleared.conditions?.find(c => c.type === "DeletionsHeld")?.status).toBe("False");
  });
});
