// Pepr registers watch bindings only in watch or dev mode; tests list them, so use dev mode.
process.env.PEPR_MODE = process.env.PEPR_MODE || "dev";
process.env.LOG_LEVEL = process.env.LOG_LEVEL || "warn";
