// Imported first by namespace-revision-cap.test.ts: the cap is read when the Repository
// reconciler's module loads. The store refuses file URLs unless the operator allows them.
process.env.PORCH_PEPR_NAMESPACE_MAX_REVISIONS = "3";
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
