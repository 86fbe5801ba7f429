// Bugs the fault campaign found, one line each: what broke, why, and the regression test in
// `npm test` that failed before the fix. results.md lists them.
export const FOUND_AND_FIXED: string[] = [
  "fuzz: a PackageVariantSet with a one-megabyte CEL string literal holding an escape held the webhook's event loop for about a second (cel-js unescapes char by char, superlinear); expressions over 5000 characters are now refused before parsing (test/unit/cel/template-expression.test.ts, “refuses an expression over 5000 characters without parsing it”)",
];
