// Imported first by set-target-limit.test.ts: imports run in order, and the limit is read when
// the reconciler's module loads.
process.env.PORCH_PEPR_SET_MAX_TARGETS = "3";
