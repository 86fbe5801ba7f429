// Pepr registers watch bindings only in watch or dev mode; tests list them, so use dev mode.
process.env.PEPR_MODE = process.env.PEPR_MODE || "dev";
process.env.LOG_LEVEL = process.env.LOG_LEVEL || "warn";
// The embedded default's git URL policy: the test git servers are http on 127.0.0.1.
process.env.PORCH_PEPR_GIT_ALLOW_HTTP = process.env.PORCH_PEPR_GIT_ALLOW_HTTP || "loopback";
