import { CONDITION_BOUNDS, kptfileState } from "../../../lib/packages/kptfile-state";
import { unmetReadinessGates } from "../../../lib/package-revision";

const kptfile = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
  labels: {tier: backend}
  annotations: {owner: team-a}
info:
  readinessGates:
    - conditionType: config.injection.ConfigMap.endpoints
    - conditionType: config.injection.ConfigMap.endpoints
status:
  conditions:
    - type: config.injection.ConfigMap.endpoints
      status: "False"
      reason: NoResourceSelected
      message: no injectors defined
`;

describe("kptfileState: what the Kptfile tells the PackageRevision", () => {
  it("carries the gates, metadata and conditions, so an unfilled required point blocks publishing", () => {
    const state = kptfileState(kptfile);
    expect(state).toEqual({
      readinessGates: [{ conditionType: "config.injection.ConfigMap.endpoints" }],
      packageMetadata: { labels: { tier: "backend" }, annotations: { owner: "team-a" } },
      packageConditions: [
        {
          type: "config.injection.ConfigMap.endpoints",
          status: "False",
          reason: "NoResourceSelected",
          message: "no injectors defined",
        },
      ],
    });
    // What admission and the lifecycle controller read from the PackageRevision.
    expect(unmetReadinessGates({ ...state })).toEqual(["config.injection.ConfigMap.endpoints"]);
  });

  it("ignores what is not a gate, a string label or a condition, and an invalid Kptfile", () => {
    const odd = `metadata: {labels: {a: 1, b: x}}\ninfo: {readinessGates: [x, {conditionType: 3}, {}]}\nstatus: {conditions: [{type: t}]}\n`;
    expect(kptfileState(odd)).toEqual({
      readinessGates: [],
      packageMetadata: { labels: { b: "x" } },
      packageConditions: [],
    });
    const empty = { readinessGates: [], packageMetadata: {}, packageConditions: [] };
    expect(kptfileState(": : [")).toEqual(empty);
    expect(kptfileState(undefined)).toEqual(empty);
  });
});

describe("the Kptfile's conditions a revision's status carries", () => {
  it("are at most CONDITION_BOUNDS.count, each field cut to its bound", () => {
    // The attacker's Kptfile: one condition with a 100 KB message, aliased a hundred times.
    const kptfile = [
      "apiVersion: kpt.dev/v1",
      "kind: Kptfile",
      "metadata:",
      "  name: app",
      "status:",
      "  conditions:",
      `  - &c {type: T, status: "True", reason: ${"r".repeat(2000)}, message: ${"m".repeat(100_000)}}`,
      ...Array.from({ length: 99 }, () => "  - *c"),
      "",
    ].join("\n");
    const { packageConditions } = kptfileState(kptfile);
    expect(packageConditions).toHaveLength(CONDITION_BOUNDS.count);
    expect(packageConditions[0].reason).toHaveLength(CONDITION_BOUNDS.reason);
    expect(packageConditions[0].message).toHaveLength(CONDITION_BOUNDS.message);
    expect(packageConditions[0].message?.endsWith("…")).toBe(true);
    expect(JSON.stringify(packageConditions).length).toBeLessThan(400_000);
  });
});
