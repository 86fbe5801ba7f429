// `npm run test:deploy` (root): the module installed with `npx pepr deploy` onto a real local
// node (hack/node/), checked through kubectl. `npm test` runs it after the unit and e2e projects,
// on its own: it starts a control plane of its own and wants both cores.
const { resolve } = require("node:path");
const [unit] = require("../../jest.config.cjs").projects;

module.exports = {
  rootDir: resolve(__dirname, "..", ".."),
  displayName: "deploy",
  testEnvironment: unit.testEnvironment,
  transform: unit.transform,
  transformIgnorePatterns: unit.transformIgnorePatterns,
  testMatch: ["<rootDir>/test/deploy/**/*.test.ts"],
  setupFiles: ["<rootDir>/test/deploy/setup-env.cjs"],
  // One node for every test file (a node costs about a minute to start).
  globalSetup: "<rootDir>/test/deploy/global-setup.ts",
  globalTeardown: "<rootDir>/test/deploy/global-teardown.ts",
  testTimeout: 120_000,
  // Exit once the tests are done: after all 18 had passed, jest was seen waiting on a handle
  // of the harness's with no child process left.
  forceExit: true,
};
