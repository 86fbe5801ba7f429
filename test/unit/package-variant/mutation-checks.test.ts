import {
  inClusterKey,
  MutationChecks,
  NOTHING_INJECTED,
  type FetchOutcome,
} from "../../../lib/package-variant";

const pv = (generation?: number, uid = "u1") => ({ metadata: { uid, generation } });

describe("MutationChecks", () => {
  it("remembers a check that found nothing, for the same variant, generation and files", () => {
    const checks = new MutationChecks();
    checks.record("ns/r", MutationChecks.stamp(pv(1), "7"), true, NOTHING_INJECTED);

    expect(checks.unchanged("ns/r", MutationChecks.stamp(pv(1), "7"))).toBe(true);
    expect(checks.unchanged("ns/r", MutationChecks.stamp(pv(2), "7"))).toBe(false);
    expect(checks.unchanged("ns/r", MutationChecks.stamp(pv(1), "8"))).toBe(false);
    expect(checks.unchanged("ns/r", MutationChecks.stamp(pv(1, "u2"), "7"))).toBe(false);
    expect(checks.unchanged("ns/other", MutationChecks.stamp(pv(1), "7"))).toBe(false);
  });

  it("forgets a revision whose check changed or injected something", () => {
    const checks = new MutationChecks();
    const stamp = MutationChecks.stamp(pv(1), "7");
    checks.record("ns/r", stamp, true, NOTHING_INJECTED);
    checks.record("ns/r", stamp, false, NOTHING_INJECTED);

    expect(checks.unchanged("ns/r", stamp)).toBe(false);
    expect(checks.size).toBe(0);
  });

  it("remembers nothing when an input is unknown", () => {
    const checks = new MutationChecks();
    expect(MutationChecks.stamp(pv(undefined), "7")).toBeUndefined();
    expect(MutationChecks.stamp(pv(1), undefined)).toBeUndefined();
    checks.record("ns/r", undefined, true, NOTHING_INJECTED);
    expect(checks.unchanged("ns/r", undefined)).toBe(false);
    expect(checks.size).toBe(0);
  });

  describe("with injected objects", () => {
    const ref = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name });
    const found = (rv?: string): FetchOutcome => ({
      status: "found",
      object: { metadata: { resourceVersion: rv } },
    });
    const fetched = (outcomes: Record<string, FetchOutcome>) =>
      new Map(Object.entries(outcomes).map(([name, o]) => [inClusterKey(ref(name)), o]));
    // Two candidates read (the first absent, the second found), a third never read.
    const candidates = [ref("first"), ref("second"), ref("third")];
    const first = fetched({ first: { status: "notFound" }, second: found("5") });

    it("remembers the objects read, absent ones too, and what the variant watches", () => {
      const reads = MutationChecks.reads(candidates, first);
      expect(reads).toEqual({
        read: [ref("first"), ref("second")],
        versions: [null, "5"],
        watched: candidates,
      });
      const checks = new MutationChecks();
      const stamp = MutationChecks.stamp(pv(1), "7");
      checks.record("ns/r", stamp, true, reads);
      // Not unchanged outright: the objects are to be read again and compared.
      expect(checks.unchanged("ns/r", stamp)).toBe(false);
      expect(checks.toConfirm("ns/r", stamp)).toBe(reads);
      expect(checks.toConfirm("ns/r", MutationChecks.stamp(pv(1), "8"))).toBeUndefined();
    });

    it("is the same only while every object read is as it was", () => {
      const reads = MutationChecks.reads(candidates, first)!;
      expect(MutationChecks.same(reads, first)).toBe(true);
      // The injected object changed, or an earlier candidate appeared, or went away.
      expect(
        MutationChecks.same(reads, fetched({ first: { status: "notFound" }, second: found("6") })),
      ).toBe(false);
      expect(MutationChecks.same(reads, fetched({ first: found("9"), second: found("5") }))).toBe(
        false,
      );
      expect(
        MutationChecks.same(
          reads,
          fetched({ first: { status: "notFound" }, second: { status: "notFound" } }),
        ),
      ).toBe(false);
      expect(
        MutationChecks.same(
          reads,
          fetched({ first: { status: "notFound" }, second: { status: "error", message: "down" } }),
        ),
      ).toBe(false);
    });

    it("remembers nothing when an object could not be read or has no version", () => {
      const failed = fetched({ first: { status: "error", message: "forbidden" } });
      expect(MutationChecks.reads(candidates, failed)).toBeUndefined();
      expect(
        MutationChecks.reads(candidates, fetched({ first: found(undefined) })),
      ).toBeUndefined();
      const checks = new MutationChecks();
      checks.record("ns/r", MutationChecks.stamp(pv(1), "7"), true, undefined);
      expect(checks.size).toBe(0);
    });
  });
});
