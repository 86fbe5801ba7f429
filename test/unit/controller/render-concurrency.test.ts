import {
  namespaceShares,
  packageRevisionConcurrency,
} from "../../../lib/controller/render-concurrency";

describe("packageRevisionConcurrency: render limit and reconcile workers agree", () => {
  it("defaults to 8 workers, each of which may render", () => {
    expect(packageRevisionConcurrency({})).toEqual({ workers: 8, renders: 8, warnings: [] });
  });

  it("keeps a reachable render limit, and follows fewer workers by default", () => {
    expect(packageRevisionConcurrency({ PORCH_PEPR_MAX_CONCURRENT_RENDERS: "3" })).toEqual({
      workers: 8,
      renders: 3,
      warnings: [],
    });
    expect(packageRevisionConcurrency({ PORCH_PEPR_PACKAGE_REVISION_WORKERS: "2" })).toEqual({
      workers: 2,
      renders: 2,
      warnings: [],
    });
  });

  it("clamps a render limit the workers could never reach, and says so", () => {
    expect(
      packageRevisionConcurrency({
        PORCH_PEPR_PACKAGE_REVISION_WORKERS: "8",
        PORCH_PEPR_MAX_CONCURRENT_RENDERS: "20",
      }),
    ).toEqual({
      workers: 8,
      renders: 8,
      warnings: [
        "PORCH_PEPR_MAX_CONCURRENT_RENDERS=20 can never be reached with PORCH_PEPR_PACKAGE_REVISION_WORKERS=8: using 8",
      ],
    });
  });

  it("reads 0 renders as: every worker may render", () => {
    expect(
      packageRevisionConcurrency({
        PORCH_PEPR_PACKAGE_REVISION_WORKERS: "16",
        PORCH_PEPR_MAX_CONCURRENT_RENDERS: "0",
      }),
    ).toEqual({ workers: 16, renders: 16, warnings: [] });
  });

  it("replaces what is not a whole number by the default, and says so", () => {
    expect(
      packageRevisionConcurrency({
        PORCH_PEPR_PACKAGE_REVISION_WORKERS: "many",
        PORCH_PEPR_MAX_CONCURRENT_RENDERS: "-1",
      }),
    ).toEqual({
      workers: 8,
      renders: 8,
      warnings: [
        'PORCH_PEPR_PACKAGE_REVISION_WORKERS="many" is not a whole number ≥ 1: using 8',
        'PORCH_PEPR_MAX_CONCURRENT_RENDERS="-1" is not a whole number ≥ 0: using 8',
      ],
    });
  });
});

describe("namespaceShares: what one namespace may hold", () => {
  it("leaves the default (half, at least one) to each queue and to the render slots", () => {
    expect(namespaceShares({})).toEqual({ workers: undefined, renders: undefined, warnings: [] });
  });

  it("reads whole numbers, and replaces anything else by the default, saying so", () => {
    expect(
      namespaceShares({
        PORCH_PEPR_WORKERS_PER_NAMESPACE: "3",
        PORCH_PEPR_RENDERS_PER_NAMESPACE: "0",
      }),
    ).toEqual({
      workers: 3,
      renders: undefined,
      warnings: ['PORCH_PEPR_RENDERS_PER_NAMESPACE="0" is not a whole number ≥ 1: using half'],
    });
  });
});
