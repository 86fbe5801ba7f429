// `npm run faults [-- --short] [--scenarios watcherKills,gitServerKills,apiServerRestarts,fuzz,soak]
//   [--out faults/results] [--soak-minutes N] [--rerun "<why>"]`: the fault campaign on the
//   embedded default (faults/README.md).
// Exits 1 when an invariant did not hold.
import { join, resolve } from "node:path";
import { repoRoot } from "../hack/cluster/paths";
import { runCampaign } from "./campaign";
import type { ScenarioName } from "./results";
import { SCENARIOS } from "./scenarios";
import { FULL, SHORT } from "./sizes";

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

async function main(): Promise<number> {
  const known = Object.keys(SCENARIOS) as ScenarioName[];
  const names = option("scenarios", known.join(",")).split(",") as ScenarioName[];
  const unknown = names.filter(n => !known.includes(n));
  if (unknown.length > 0)
    throw new Error(`unknown scenarios ${unknown.join(", ")}; known: ${known.join(", ")}`);
  const short = process.argv.includes("--short");
  const out = resolve(option("out", join(repoRoot, "faults", "results")));
  // --soak-minutes: a soak of another length than the size's (a 10-minute check of the soak).
  const sizes = short ? SHORT : FULL;
  const soakMinutes = Number(option("soak-minutes", String(sizes.soak.minutes)));
  // --rerun "<why>": run the scenarios again into the results in --out, saying why.
  const rerun = option("rerun", "") || undefined;
  const results = await runCampaign({
    sizes: { ...sizes, soak: { minutes: soakMinutes } },
    names,
    short,
    out,
    rerun,
  });
  const broken = Object.entries(results.violations).filter(([, v]) => v && v.length > 0);
  for (const [name, v] of broken) process.stderr.write(`[faults] ${name}: ${v?.join("; ")}\n`);
  process.stderr.write(`[faults] results in ${out}\n`);
  return broken.length > 0 ? 1 : 0;
}

main().then(
  code => process.exit(code),
  error => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
