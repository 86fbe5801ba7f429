import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { log } from "../progress";
import { repoRoot } from "../cluster/paths";

export const moduleBundle = join(repoRoot, "dist", "pepr-porch-pepr.js");
export const moduleManifest = join(repoRoot, "dist", "pepr-module-porch-pepr.yaml");

const sources = ["pepr.ts", "package.json", "capabilities", "lib", "crd-types"];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((m, entry) => Math.max(m, newestMtime(join(path, entry))), 0);
}

/** Runs `npx pepr build` when the bundle is missing or older than any module source. */
export function ensureModuleBuilt(): void {
  const bundleTime = existsSync(moduleBundle) ? statSync(moduleBundle).mtimeMs : 0;
  const sourceTime = Math.max(
    ...sources
      .map(s => join(repoRoot, s))
      .filter(existsSync)
      .map(newestMtime),
  );
  if (bundleTime > sourceTime && existsSync(moduleManifest)) return;
  log("building the Pepr module (npx pepr build)");
  const result = spawnSync("npx", ["pepr", "build"], { cwd: repoRoot, encoding: "utf8" });
  // pepr build exits 0 even when tsc fails (research/pepr.md §1): trust only the bundle.
  if (
    result.status !== 0 ||
    !existsSync(moduleBundle) ||
    statSync(moduleBundle).mtimeMs <= bundleTime
  ) {
    throw new Error(`npx pepr build failed:\n${result.stdout}\n${result.stderr}`);
  }
}
