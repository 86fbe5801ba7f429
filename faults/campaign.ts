// Runs the chosen scenarios one after another, each on an environment of its own, and writes
// the results after each (a campaign cut short still reports what it measured).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
  /**
   * Run the scenarios again into the results already in `out`, replacing theirs and saying
   * so, with this reason (a scenario broken by a bug in the campaign itself, since fixed).
   */
  rerun?: string;
}

async function runOne<K extends ScenarioName>(
  name: K,
  sizes: Sizes,
  results: CampaignResults,
): Promise<void> {
  const scenario = SCENARIOS[name] as Scenario<K>;
  try {
    const result = await withFaultEnvironment(
      name,
      ctx => scenario.run(ctx, sizes),
      scenario.moduleEnv?.(sizes),
    );
    (results as Partial<ScenarioResults>)[name] = result;
    results.violations[name] = violationsOf(scenario, result, sizes);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    results.violations[name] = [`did not finish: ${message}`];
  }
}

const head = () => execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim();

/** The results a rerun goes into: the campaign's, at the same sizes. */
function earlier(out: string | undefined, short: boolean): CampaignResults {
  const file = out && join(out, "results.json");
  if (!file || !existsSync(file)) throw new Error(`--rerun needs the campaign's results in ${out}`);
  const results = JSON.parse(readFileSync(file, "utf8")) as CampaignResults;
  if (results.short !== short)
    throw new Error(
      `--rerun at the ${short ? "short" : "full"} sizes into a campaign at the other`,
    );
  return results;
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignResults> {
  const results: CampaignResults = options.rerun
    ? { ...earlier(options.out, options.short), foundAndFixed: FOUND_AND_FIXED }
    : {
        commit: head(),
        date: new Date().toISOString(),
        machine: machine(),
        short: options.short,
        violations: {},
        foundAndFixed: FOUND_AND_FIXED,
      };
  for (const name of options.names) {
    if (options.rerun) {
      const again = { commit: head(), date: new Date().toISOString(), why: options.rerun };
      results.reruns = { ...results.reruns, [name]: again };
    }
    await runOne(name, options.sizes, results);
    if (options.out) writeResults(options.out, results);
  }
  return results;
}
