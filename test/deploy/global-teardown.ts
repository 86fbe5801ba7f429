import { rmSync } from "node:fs";
import type { DeploySetup } from "./environment";

export default async function globalTeardown(): Promise<void> {
  const setup = (globalThis as Record<string, unknown>).__PORCH_PEPR_DEPLOY__ as
    | DeploySetup
    | undefined;
  if (!setup) return;
  const stopping = Date.now();
  await setup.env.stop();
  setup.timings.push(["stop", (Date.now() - stopping) / 1000]);
  process.stderr.write(
    `[deploy] ${setup.timings.map(([what, s]) => `${s.toFixed(1)}s  ${what}`).join("\n[deploy] ")}\n`,
  );
  rmSync(setup.stateDir, { recursive: true, force: true });
}
