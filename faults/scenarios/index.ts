// Every fault scenario by its results key, in the order a campaign runs them.
import type { ScenarioName } from "../results";
import type { Scenario } from "../scenario";
import { apiServerRestarts } from "./api-server-restarts";
import { fuzz } from "./fuzz";
import { soak } from "./soak";
import { watcherKills } from "./watcher-kills";

export const SCENARIOS: Partial<{ [K in ScenarioName]: Scenario<K> }> = {
  watcherKills,
  apiServerRestarts,
  fuzz,
  soak,
};
