import { Log } from "pepr";
import { execPolicyFromEnv } from "../../lib/fn";

/**
 * The administrator's exec policy (PORCH_PEPR_ALLOW_EXEC, PORCH_PEPR_EXEC_ALLOWLIST), read once
 * from the environment that admission and the controllers share; bad allow-list entries are
 * left out and logged at start-up.
 */
const configured = execPolicyFromEnv(process.env);
for (const problem of configured.problems) Log.error(`exec policy: ${problem} (entry ignored)`);

export const execPolicy = configured.policy;
