// Every fault scenario by its results key, in the order a campaign runs them.
import type { ScenarioName } from "../results";
import type { Scenario } from "../scenario";
import { apiServerRestarts } from "./api-server-restarts";
import { fuzz } from "./fuzz";
import { gitServerKills } from "./git-server-kills";
import { noisyNeighbour } from "./noisy-neighbour";
import { soak } from "./soak";
import { watcherKills } from "./watcher-kills";

export const SCENARIOS: { [K in ScenarioName]: Scenario<K> } = {
  watcherKills,
  gitServerKills,
  apiServerRestarts,
  fuzz,
  soak,
  noisyNeighbour,
};
