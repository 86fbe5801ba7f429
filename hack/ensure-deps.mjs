#!/usr/bin/env node
// `npm start` and `npm test` on a fresh clone: install node_modules first when they are missing
// or older than the lock file. Plain Node, no dependencies (it runs before they exist).
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";

const marker = "node_modules/.package-lock.json";
const stale =
  !existsSync(marker) || statSync(marker).mtimeMs < statSync("package-lock.json").mtimeMs;
if (stale) {
  console.error("installing dependencies (npm ci)...");
  const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { stdio: "inherit" });
  process.exit(result.status ?? 1);
}
