import { Log } from "pepr";
import { setTargetLimitFromEnv } from "../../lib/package-variant-set";

/** PORCH_PEPR_SET_MAX_TARGETS, read once (admission reads the same variable). */
export const setTargetLimit = setTargetLimitFromEnv(process.env);
for (const warning of setTargetLimit.warnings) Log.warn(warning);
