import type { FaultContext } from "./context";
import type { ScenarioName, ScenarioResults } from "./results";
import type { Sizes } from "./sizes";

/** One fault scenario: how it runs, and which of its counts are invariants that must be 0. */
export interface Scenario<K extends ScenarioName> {
  run(ctx: FaultContext, sizes: Sizes): Promise<ScenarioResults[K]>;
  /** Counts that must be 0 for the invariants to hold. */
  zeros: (keyof ScenarioResults[K])[];
  /** Further invariants (e.g. every fault injected as often as asked): messages of those broken. */
  check?(result: ScenarioResults[K], sizes: Sizes): string[];
  /** Settings of the module's processes for this scenario (an operator limit set lower). */
  moduleEnv?(sizes: Sizes): Record<string, string>;
}

/** The invariants `result` breaks, named. */
export function violationsOf<K extends ScenarioName>(
  scenario: Scenario<K>,
  result: ScenarioResults[K],
  sizes: Sizes,
): string[] {
  const broken = scenario.zeros
    .filter(key => result[key] !== 0)
    .map(key => `${String(key)} = ${String(result[key])}, expected 0`);
  return [...broken, ...(scenario.check?.(result, sizes) ?? [])];
}
