// Every fault scenario by its results key, in the order a campaign runs them.
import type { ScenarioName } from "../results";
import type { Scenario } from "../scenario";
import { gitServerKills } from "./git-server-kills";
import { watcherKills } from "./watcher-kills";

export const SCENARIOS: Partial<{ [K in ScenarioName]: Scenario<K> }> = {
  watcherKills,
  gitServerKills,
};
