// `npm run test:deploy` (root): the module installed with `npx pepr deploy` onto a real local
// node (hack/node/), checked through kubectl. Not part of `npm test`: it needs root and a few
// minutes; the root config's projects do not match test/deploy/.
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
  testTimeout: 120_000,
};
