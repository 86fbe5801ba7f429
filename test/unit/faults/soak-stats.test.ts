import { seededRandom } from "../../../faults/prng";
import { errorConditions, pick, slope } from "../../../faults/soak-stats";

describe("seededRandom", () => {
  it("repeats its sequence for a seed, in [0, 1)", () => {
    const a = seededRandom(16);
    const b = seededRandom(16);
    const xs = Array.from({ length: 100 }, () => a());
    expect(Array.from({ length: 100 }, () => b())).toEqual(xs);
    expect(xs.every(x => x >= 0 && x < 1)).toBe(true);
    expect(seededRandom(17)()).not.toBe(xs[0]);
  });
});

describe("pick", () => {
  it("draws keys in proportion to their weights and never one of weight 0", () => {
    const random = seededRandom(1);
    const counts = { a: 0, b: 0, never: 0 };
    for (let i = 0; i < 10_000; i++) counts[pick(random, { a: 3, b: 1, never: 0 })] += 1;
    expect(counts.never).toBe(0);
    expect(counts.a / counts.b).toBeGreaterThan(2.5);
    expect(counts.a / counts.b).toBeLessThan(3.5);
  });
});

describe("slope", () => {
  it("is the least-squares slope", () => {
    expect(slope([0, 1, 2, 3].map(x => ({ x, y: 5 + 2 * x })))).toBeCloseTo(2);
    // noise symmetric about a flat line has no slope
    expect(slope([10, 12, 12, 10].map((y, x) => ({ x, y })))).toBeCloseTo(0);
    expect(slope([{ x: 1, y: 3 }])).toBe(0);
    expect(
      slope([
        { x: 1, y: 3 },
        { x: 1, y: 5 },
      ]),
    ).toBe(0);
  });
});

describe("errorConditions", () => {
  it("counts failures, not work in progress", () => {
    const found = errorConditions([
      { type: "Ready", status: "False", reason: "Pending" },
      { type: "Rendered", status: "False", reason: "RenderFailed" },
      { type: "Stalled", status: "False", reason: "Valid" },
      { type: "Stalled", status: "True", reason: "ValidationError" },
      { type: "Ready", status: "True", reason: "NoErrors" },
      {
        type: "config.injection.ConfigMap.endpoints",
        status: "False",
        reason: "NoResourceSelected",
      },
    ]);
    expect(found.map(c => `${c.type}/${c.reason}`)).toEqual([
      "Rendered/RenderFailed",
      "Stalled/ValidationError",
    ]);
  });
});
