import { MutationChecks } from "../../../lib/package-variant";

const pv = (generation?: number, uid = "u1") => ({ metadata: { uid, generation } });

describe("MutationChecks", () => {
  it("remembers a check that found nothing, for the same variant, generation and files", () => {
    const checks = new MutationChecks();
    checks.record("ns/r", MutationChecks.stamp(pv(1), "7"), true);

    expect(checks.unchanged("ns/r", MutationChecks.stamp(pv(1), "7"))).toBe(true);
    expect(checks.unchanged("ns/r", MutationChecks.stamp(pv(2), "7"))).toBe(false);
    expect(checks.unchanged("ns/r", MutationChecks.stamp(pv(1), "8"))).toBe(false);
    expect(checks.unchanged("ns/r", MutationChecks.stamp(pv(1, "u2"), "7"))).toBe(false);
    expect(checks.unchanged("ns/other", MutationChecks.stamp(pv(1), "7"))).toBe(false);
  });

  it("forgets a revision whose check changed or injected something", () => {
    const checks = new MutationChecks();
    const stamp = MutationChecks.stamp(pv(1), "7");
    checks.record("ns/r", stamp, true);
    checks.record("ns/r", stamp, false);

    expect(checks.unchanged("ns/r", stamp)).toBe(false);
    expect(checks.size).toBe(0);
  });

  it("remembers nothing when an input is unknown", () => {
    const checks = new MutationChecks();
    expect(MutationChecks.stamp(pv(undefined), "7")).toBeUndefined();
    expect(MutationChecks.stamp(pv(1), undefined)).toBeUndefined();
    checks.record("ns/r", undefined, true);
    expect(checks.unchanged("ns/r", undefined)).toBe(false);
    expect(checks.size).toBe(0);
  });
});
