// Bugs the fault campaign found, one line each: what broke, why, and the regression test in
// `npm test` that failed before the fix. results.md lists them.
export const FOUND_AND_FIXED: string[] = [];
