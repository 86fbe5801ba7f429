import { moduleProcessEnv } from "../../../hack/module/runner";

// A test that starts the embedded default (the fault campaign's short run) runs under jest's
// PEPR_MODE=dev; the module's admission process inherited it and ran the controllers too.
describe("a module process's environment", () => {
  it("leaves the choice of the controllers' process to PEPR_WATCH_MODE alone", () => {
    const env = moduleProcessEnv({ PEPR_MODE: "dev", HOME: "/root" }, { PEPR_WATCH_MODE: "false" });
    expect(env).toEqual({ PEPR_MODE: "", HOME: "/root", PEPR_WATCH_MODE: "false" });
  });
});
