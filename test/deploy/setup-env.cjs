process.env.LOG_LEVEL = process.env.LOG_LEVEL || "warn";
// The test writes its git fixtures from the host to http git servers on the node's bridge
// address (Pods cannot reach loopback); the installed module is configured the same way.
process.env.PORCH_PEPR_GIT_ALLOW_HTTP = "any";
