import { spawnSync } from "node:child_process";
import { moduleBundle } from "../../hack/module/build";

// PORCH_PEPR_RECONCILERS is read when the module starts: the built module, started as its
// watcher is, refuses a name it does not know before it watches anything.
describe("PORCH_PEPR_RECONCILERS", () => {
  it("refuses to start with an unknown reconciler name, naming it", () => {
    const result = spawnSync(process.execPath, [moduleBundle], {
      encoding: "utf8",
      timeout: 60_000,
      env: {
        ...process.env,
        PEPR_WATCH_MODE: "true",
        PORCH_PEPR_PORT: "0",
        PORCH_PEPR_RECONCILERS: "packagevariants,packagevariantset",
      },
    });
    expect(result.status).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      'PORCH_PEPR_RECONCILERS: unknown reconciler \\"packagevariantset\\"; known: repositories, packagerevisions, packagevariants, packagevariantsets (or * for all)',
    );
  });
});
