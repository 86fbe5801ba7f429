// Bugs the fault campaign found, one line each: what broke, why, and the regression test in
// `npm test` that failed before the fix. results.md lists them.
export const FOUND_AND_FIXED: string[] = [
  "fuzz: a PackageVariantSet with a one-megabyte CEL string literal holding an escape held the webhook's event loop for about a second (cel-js unescapes char by char, superlinear); expressions over 5000 characters are now refused before parsing (test/unit/cel/template-expression.test.ts, “refuses an expression over 5000 characters without parsing it”)",
  "fuzz: a 2 MB PackageVariantSet got a 500 (\"failed calling webhook … status code 413\"): Pepr's webhook server read at most 2 MB, and an edit's AdmissionReview carries the object twice, so any edit of a package over 1 MiB failed the same way; the module now lets express parse reviews up to 32 MB (test/e2e/admission.test.ts, “a package over 1 MiB is edited through the webhook, not refused with a 500”)",
];
