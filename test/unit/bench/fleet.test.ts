import { deploymentRepositories } from "../../../bench/scenarios/fleet";
import { injectableUpstream, missingMutations } from "../../../bench/scenarios/fleet-fanout";

describe("deploymentRepositories", () => {
  it.each([
    [20, 10],
    [1000, 10],
    [1001, 11],
    [10_000, 100],
  ])("N = %i: %i repositories (at most 100 packages each beyond ten)", (n, repos) => {
    expect(deploymentRepositories(n)).toBe(repos);
  });
});

describe("the fleet scenario's package", () => {
  it("adds a required injection point to every revision of base-ns", () => {
    const pkg = injectableUpstream(2);
    expect(pkg.revisions).toHaveLength(2);
    for (const r of pkg.revisions) {
      expect(r.files["tenant-defaults.yaml"]).toContain("kpt.dev/config-injection: required");
      expect(r.files.Kptfile).toBeDefined();
    }
  });

  it("counts drafts missing any of the three mutations", () => {
    const done = {
      "package-context.yaml": "data:\n  region: eu-west\n",
      "tenant-defaults.yaml":
        "metadata:\n  labels:\n    bench.porch.kpt.dev/fleet: bench\n  annotations:\n    kpt.dev/injected-resource-name: fleet-defaults\ndata:\n  owner: bench-fleet\n",
    };
    const noInjection = { ...done, "tenant-defaults.yaml": "data:\n  tier: standard\n" };
    expect(missingMutations([done, done])).toBe(0);
    expect(missingMutations([done, noInjection, {}])).toBe(2);
  });
});
