import { kptfileState } from "../../../lib/packages/kptfile-state";
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
