// results.json (the keys exactly, plus machine, date, violations and the found-and-fixed
// list) and results.md, its table for people.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CampaignResults, ScenarioName } from "./results";

const TITLES: Record<ScenarioName, string> = {
  watcherKills: "Watcher killed (SIGKILL) during fan-out, publish and upgrade",
  gitServerKills: "Git server killed mid-push and restarted",
  apiServerRestarts: "API server restarted during fan-out",
  fuzz: "Admission fuzzing through the live webhook",
  soak: "Soak: steady churn",
  noisyNeighbour: "Noisy neighbour: a victim's drafts while another namespace attacks",
};

function section(results: CampaignResults, name: ScenarioName): string[] {
  const result = results[name];
  const violations = results.violations[name];
  const head = `## ${TITLES[name]} (\`${name}\`)`;
  const again = results.reruns?.[name];
  const rerun = again
    ? [`Run again at commit ${again.commit}, ${again.date}: ${again.why}`, ""]
    : [];
  if (!result)
    return [
      head,
      "",
      violations?.length ? `Not finished: ${violations.join("; ")}` : "Not run.",
      "",
    ];
  // A count by kind (the soak's operations) is shown as its JSON.
  const cell = (v: unknown) => (typeof v === "object" ? JSON.stringify(v) : String(v));
  const rows = Object.entries(result).map(([k, v]) => `| ${k} | ${cell(v)} |`);
  const verdict =
    violations && violations.length > 0
      ? `**Invariants broken:** ${violations.join("; ")}`
      : "Every invariant held.";
  return [head, "", ...rerun, "| key | value |", "|---|---|", ...rows, "", verdict, ""];
}

export function markdown(results: CampaignResults): string {
  const m = results.machine;
  const names = Object.keys(TITLES) as ScenarioName[];
  return [
    `# Fault campaign${results.short ? " (short run)" : ""}`,
    "",
    `Commit ${results.commit}, ${results.date}. Machine: ${m.cores} × ${m.cpuModel}, ` +
      `${m.memoryGb} GB, Node.js ${m.node}, load average at the start ${m.loadAverage.join(" ")}.`,
    "Each scenario ran on an embedded default of its own (`npm run faults`, faults/README.md);",
    "every count below is checked from the API and from git, not from the operator's logs.",
    "",
    ...names.flatMap(name => section(results, name)),
    "## Found and fixed",
    "",
    ...(results.foundAndFixed.length > 0
      ? results.foundAndFixed.map(line => `- ${line}`)
      : ["Nothing yet."]),
    "",
  ].join("\n");
}

export function writeResults(out: string, results: CampaignResults): void {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(out, "results.md"), markdown(results));
}
