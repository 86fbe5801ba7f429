// Jest runs TypeScript through swc as CommonJS. Pepr's CJS build require()s the ESM-only
// kubernetes-fluent-client, so those packages are transformed too (research/pepr.md §5).
const esmPackages = [
  "kubernetes-fluent-client",
  "@kubernetes/client-node",
  "jose",
  "oauth4webapi",
  "openid-client",
  "rfc4648",
  "jsonpath-plus",
  "@jsep-plugin",
  "jsep",
  "uuid",
  "@marcbachmann/cel-js",
  "pepr/src",
];

const shared = {
  testEnvironment: "node",
  transform: {
    "^.+\\.[cm]?[tj]s$": [
      "@swc/jest",
      {
        jsc: { target: "es2022", parser: { syntax: "typescript" } },
        module: { type: "commonjs" },
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join("|")})/)`],
  setupFiles: ["<rootDir>/test/setup-env.cjs"],
};

module.exports = {
  // Exit once the tests are done: a built-in function worker started from the TypeScript
  // sources loads them through tsx, whose esbuild service child outlived the run and held jest
  // open after every test had passed (seen in a clean-clone .ci/run).
  forceExit: true,
  projects: [
    { ...shared, displayName: "unit", testMatch: ["<rootDir>/test/unit/**/*.test.ts"] },
    {
      ...shared,
      displayName: "e2e",
      testMatch: ["<rootDir>/test/e2e/**/*.test.ts"],
      globalSetup: "<rootDir>/test/e2e/global-setup.ts",
      globalTeardown: "<rootDir>/test/e2e/global-teardown.ts",
      setupFilesAfterEnv: ["<rootDir>/test/e2e/setup-timeout.ts"],
    },
    {
      // The short fault campaign: each scenario starts an embedded default of its own.
      ...shared,
      displayName: "faults",
      testMatch: ["<rootDir>/test/faults/**/*.test.ts"],
      setupFilesAfterEnv: ["<rootDir>/test/faults/setup-timeout.ts"],
    },
  ],
};
