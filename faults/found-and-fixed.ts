// Bugs the fault campaign found, one line each: what broke, why, and the regression test in
// `npm test` that failed before the fix. results.md lists them.
export const FOUND_AND_FIXED: string[] = [
  "gitServerKills: a propose/publish or a clone source that met a git server that was down was recorded as the revision's final failure (Ready=False reason Failed, never retried until the object changed), and the reason said Error, not that the server was down: both git clients now classify refused/reset/cut connections and 502/503/504 as Unavailable, and the PackageRevision controller retries Unavailable/Timeout/Transport failures with backoff, saying Ready=False reason Unavailable meanwhile (PackageVariants waiting for it too) (test/unit/git/unavailable.test.ts, test/unit/reconcilers/git-unavailable.test.ts, test/unit/package-variant/readiness.test.ts)",
];
