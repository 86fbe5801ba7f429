// The function catalog the e2e module starts with (hack/module/runner.ts applies it before the
// module starts): one exec function, cat (the identity function), so admission's and the
// render's exec rules are tested as an administrator would set them. A test that changes the
// catalog keeps these entries, since other test files run against the same module.
export const MULTIPLIER_IMAGE_PATTERN = "example.com/fns/e2e-multiplier:*";

export const E2E_CATALOG_ENTRIES = [
  { exec: "e2e-identity", runtime: "exec", executable: { path: "/usr/bin/cat" } },
  // apply-replacements with no time limit to speak of, so only its heap can stop a runaway
  // render (test/e2e/function-bounds.test.ts): the default 10s would usually come first.
  {
    image: MULTIPLIER_IMAGE_PATTERN,
    runtime: "builtin",
    builtin: "apply-replacements",
    limits: { timeout: "10m", maxMemory: "96Mi" },
  },
];

export const FUNCTION_CATALOG = { namespace: "pepr-system", name: "porch-pepr-functions" };

/** catalog.yaml with the e2e entries first, then `extra`. */
export const e2eCatalog = (extra: object[] = [], fields: object = {}): string =>
  JSON.stringify({ functions: [...E2E_CATALOG_ENTRIES, ...extra], ...fields }, null, 2);
