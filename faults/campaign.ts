// Runs the chosen scenarios one after another, each on an environment of its own, and writes
// the results after each (a campaign cut short still reports what it measured).
import { execFileSync } from "node:child_process";
import { machine } from "../bench/metrics";
import { withFaultEnvironment } from "./context";
import { FOUND_AND_FIXED } from "./found-and-fixed";
import { writeResults } from "./report";
import type { CampaignResults, ScenarioName, ScenarioResults } from "./results";
import { violationsOf, type Scenario } from "./scenario";
import { SCENARIOS } from "./scenarios";
import type { Sizes } from "./sizes";

export interface CampaignOptions {
  sizes: Sizes;
  names: ScenarioName[];
  short: boolean;
  /** Folder for results.json and results.md; none writes nothing (the test reads the object). */
  out?: string;
}

async function runOne<K extends ScenarioName>(
  name: K,
  sizes: Sizes,
  results: CampaignResults,
): Promise<void> {
  const scenario = SCENARIOS[name] as Scenario<K>;
  try {
    const result = await withFaultEnvironment(name, ctx => scenario.run(ctx, sizes));
    (results as Partial<ScenarioResults>)[name] = result;
    results.violations[name] = violationsOf(scenario, result, sizes);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    results.violations[name] = [`did not finish: ${message}`];
  }
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignResults> {
  const results: CampaignResults = {
    commit: execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim(),
    date: new Date().toISOString(),
    machine: machine(),
    short: options.short,
    violations: {},
    foundAndFixed: FOUND_AND_FIXED,
  };
  for (const name of options.names) {
    await runOne(name, options.sizes, results);
    if (options.out) writeResults(options.out, results);
  }
  return results;
}
