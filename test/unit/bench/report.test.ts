import {
  headline,
  headlineSize,
  markdown,
  perVariantGrowth,
  realFloors,
  withNulls,
  type BenchResults,
  type SizeResult,
} from "../../../bench/report";
import type { Cost } from "../../../bench/scenarios/context";
import type { StepResult } from "../../../bench/scenarios/fanout";

/** A step that reached `rendered` (seconds) with these counts and the watcher's peak RSS. */
function step(rendered: number, requests: number, pushes: number, rssMb: number): StepResult {
  const cost: Cost = {
    requests: {},
    requestTotal: requests,
    reconciles: {},
    pushes,
    usage: {
      processes: {
        watcher: { cpuSeconds: 1, childCpuSeconds: 0, peakRssMb: rssMb, peakFds: 10 },
      },
      machineBusy: 0.5,
      otherCpuSeconds: 0,
    },
  };
  return { timeline: { rendered, settled: rendered + 1, published: rendered }, cost };
}

const realFloor = (fanOutMs: number, upgradeMs: number) => ({
  fanOut: { ms: fanOutMs, apiMs: fanOutMs, gitMs: fanOutMs / 2, pushes: 10 },
  upgrade: { ms: upgradeMs, apiMs: upgradeMs, gitMs: upgradeMs / 2, pushes: 10 },
  untouched: true,
});

const results = (sizes: SizeResult[]): BenchResults => ({
  machine: {
    cpuModel: "test",
    cores: 2,
    memoryGb: 8,
    node: "v20",
    git: "abc1234",
    loadAverage: [0, 0, 0],
  },
  date: "2026-11-27T00:00:00Z",
  scenarios: [],
  sizes,
});

const n1000: SizeResult = {
  n: 1000,
  fanOut: step(100, 8000, 50, 200),
  publish: step(60, 5000, 20, 230),
  upgrade: step(130, 9000, 40, 210),
  fleet: step(120, 10000, 60, 220),
  floor: { real: realFloor(40_000, 65_000) },
};

describe("the issue's headline", () => {
  it("reads every figure at N = 1000: times, ratios to the real floor, worst per-variant counts and RSS", () => {
    const h = headline(results([{ n: 100, fanOut: step(11, 800, 5, 150) }, n1000]));
    expect(h.n).toBe(1000);
    expect(h.fanOutSeconds).toBe(100);
    expect(h.upgradeSeconds).toBe(130);
    expect(h.publishSeconds).toBe(60);
    expect(h.realFloorRatio).toEqual({ fanOut: 2.5, upgrade: 2 });
    // the fleet's fan-out is the worst of the three counted steps
    expect(h.apiRequestsPerVariant).toBe(10);
    expect(h.pushesPerVariant).toBe(0.06);
    expect(h.fleetFanOutRatio).toBe(1.2);
    // the publish's RSS counts too
    expect(h.peakRssMb).toBe(230);
    expect(h.installedFanOutSeconds).toBeUndefined();
  });

  it("takes N = 10,000 from its own size, with time per variant against N = 1000's", () => {
    const big: SizeResult = { n: 10_000, fanOut: step(1100, 80_000, 500, 400) };
    const h = headline(results([n1000, big]));
    expect(h.n).toBe(1000);
    expect(h.n10000).toEqual({ seconds: 1100, peakRssMb: 400, perVariantGrowth: 1.1 });
  });

  it("reads the largest size below 10,000 when N = 1000 did not run", () => {
    const r = results([{ n: 20 }, { n: 100 }, { n: 10_000 }]);
    expect(headlineSize(r)?.n).toBe(100);
  });

  it("keeps every key in the JSON, a figure not measured as null", () => {
    const h = withNulls(headline(results([{ n: 20 }])));
    for (const key of [
      "fanOutSeconds",
      "upgradeSeconds",
      "publishSeconds",
      "apiRequestsPerVariant",
      "pushesPerVariant",
      "fleetFanOutRatio",
      "installedFanOutSeconds",
      "peakRssMb",
    ] as const)
      expect(h[key]).toBeNull();
    expect(h.realFloorRatio).toEqual({ fanOut: null, upgrade: null });
    expect(h.n10000).toEqual({ seconds: null, peakRssMb: null, perVariantGrowth: null });
  });

  it("shows the figures with the issue's targets in results.md", () => {
    const md = markdown(results([n1000]));
    expect(md).toContain("| ours ÷ real floor, fan-out / upgrade | 2.5 / 2 | ≤ 2.5 |");
    expect(md).toContain(
      "| fleet fan-out (context + mutator + injection) ÷ plain fan-out | 1.2 | ≤ 1.2 |",
    );
    expect(md).toContain("| API requests per variant | 10 | ≤ 8 |");
  });
});

describe("the installed scenario", () => {
  const withPod = (base: StepResult, pod: NonNullable<Cost["pod"]>): StepResult => ({
    ...base,
    cost: { ...base.cost, pod },
  });
  const installed: SizeResult = {
    n: 100,
    installed: {
      fanOut: withPod(step(25, 900, 10, 180), {
        peakMemoryMb: 300.5,
        peakWorkingSetMb: 190.2,
        restarts: 0,
      }),
      upgrade: withPod(step(40, 1200, 10, 200), {
        peakMemoryMb: 512,
        peakWorkingSetMb: 500,
        restarts: 1,
        lastTermination: "OOMKilled (exit 137)",
      }),
    },
  };

  it("gives the headline its fan-out time at the headline size", () => {
    expect(headline(results([installed])).installedFanOutSeconds).toBe(25);
  });

  it("shows the watcher Pod's memory and restarts in results.md", () => {
    const md = markdown(results([installed]));
    expect(md).toContain("| installed (Pods, isomorphic-git) fan-out, s | 25 | ≤ 250 |");
    expect(md).toContain("| 100 | installed fan-out | 25 | 26 | – | 9 | 0.1 | 300.5 / 190.2 | 0 |");
    expect(md).toContain(
      "| 100 | installed upgrade | 40 | 41 | – | 12 | 0.1 | 512 / 500 | 1 (OOMKilled (exit 137)) |",
    );
    expect(md).toMatch(/\| 100 \| installed upgrade \| 1 \(\+0 git\) \| 200 \|/);
  });
});

describe("realFloors and perVariantGrowth", () => {
  it("are seconds of the overlapped runs", () => {
    expect(realFloors({ n: 10, floor: { real: realFloor(1500, 2500) } })).toEqual({
      fanOut: 1.5,
      upgrade: 2.5,
    });
    expect(realFloors({ n: 10 })).toEqual({});
  });

  it.each([
    [{ n: 1000, seconds: 100 }, { n: 10_000, seconds: 1000 }, 1],
    [{ n: 1000, seconds: 100 }, { n: 10_000, seconds: 1500 }, 1.5],
    [{ n: 1000, seconds: undefined }, { n: 10_000, seconds: 1000 }, undefined],
  ])("%j → %j grows %s per variant", (small, big, growth) => {
    expect(perVariantGrowth(small, big)).toBe(growth);
  });
});
