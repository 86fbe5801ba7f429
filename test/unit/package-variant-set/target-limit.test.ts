import {
  listedTargetCount,
  unrollSelectedObjects,
  listedTargetProblems,
  setTargetLimitFromEnv,
  tooManyTargetsProblem,
} from "../../../lib/package-variant-set";

describe("the set target limit", () => {
  it("counts each listed repository once per package name, or once without names", () => {
    const spec = {
      targets: [
        { repositories: [{ name: "a" }, { name: "b", packageNames: ["x", "y", "z"] }] },
        { repositorySelector: {} },
        { repositories: [{ name: "c", packageNames: [] }] },
      ],
    };
    expect(listedTargetCount(spec)).toBe(5);
    expect(listedTargetProblems(spec, 5)).toEqual([]);
    expect(listedTargetProblems(spec, 4)).toEqual([
      "spec.targets yield 5 PackageVariants, more than 4 (PORCH_PEPR_SET_MAX_TARGETS); split the set or narrow its selectors",
    ]);
  });

  it("is within the limit at the limit", () => {
    expect(tooManyTargetsProblem(10, 10)).toBeUndefined();
    expect(tooManyTargetsProblem(11, 10)).toContain("11 PackageVariants, more than 10");
  });

  it("reads PORCH_PEPR_SET_MAX_TARGETS, warning about a value that is not a count", () => {
    expect(setTargetLimitFromEnv({})).toEqual({ maxTargets: 10_000, warnings: [] });
    expect(setTargetLimitFromEnv({ PORCH_PEPR_SET_MAX_TARGETS: "250" })).toEqual({
      maxTargets: 250,
      warnings: [],
    });
    for (const bad of ["0", "-1", "1e3", "lots", "99999999"])
      expect(setTargetLimitFromEnv({ PORCH_PEPR_SET_MAX_TARGETS: bad })).toEqual({
        maxTargets: 10_000,
        warnings: [
          `PORCH_PEPR_SET_MAX_TARGETS=${JSON.stringify(bad)} is not a count from 1 to 1000000: using 10000`,
        ],
      });
  });
});

describe("unrolling a selector target", () => {
  it("builds one CEL view per selected object, shared by its package names", () => {
    const contexts = unrollSelectedObjects(
      [{ metadata: { name: "edge-1", labels: { a: "b" } } }],
      ["p1", "p2", "p3"],
      {},
      0,
      "up",
    );
    expect(contexts.map(c => c.packageDefault)).toEqual(["p1", "p2", "p3"]);
    expect(new Set(contexts.map(c => c.target)).size).toBe(1);
  });
});
