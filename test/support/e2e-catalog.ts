// The function catalog the e2e module starts with (hack/module/runner.ts applies it before the
// module starts): one exec function, cat (the identity function), so admission's and the
// render's exec rules are tested as an administrator would set them. A test that changes the
// catalog keeps these entries, since other test files run against the same module.
export const E2E_CATALOG_ENTRIES = [
  { exec: "e2e-identity", runtime: "exec", executable: { path: "/usr/bin/cat" } },
];

export const FUNCTION_CATALOG = { namespace: "pepr-system", name: "porch-pepr-functions" };

/** catalog.yaml with the e2e entries first, then `extra`. */
export const e2eCatalog = (extra: object[] = [], fields: object = {}): string =>
  JSON.stringify({ functions: [...E2E_CATALOG_ENTRIES, ...extra], ...fields }, null, 2);
