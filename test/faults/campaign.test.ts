// The short fault campaign (faults/sizes.ts SHORT): every scenario of `npm run faults`, each on
// an embedded default of its own, with every invariant held. The full run is committed in
// faults/results/ and linked from the README.
import { runCampaign } from "../../faults/campaign";
import type { ScenarioName } from "../../faults/results";
import { SCENARIOS } from "../../faults/scenarios";
import { SHORT } from "../../faults/sizes";

const names = Object.keys(SCENARIOS) as ScenarioName[];

describe("the short fault campaign", () => {
  it.each(names)("%s: every invariant holds", async name => {
    const results = await runCampaign({ sizes: SHORT, names: [name], short: true });
    expect(results.violations[name]).toEqual([]);
    expect(results[name]).toBeDefined();
  });
});
