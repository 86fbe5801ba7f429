// Which `exec` functions may run: the operator's administrator decides, never a tenant. A
// Kptfile or PackageVariant names an executable by a key of the allow-list (a name or an
// absolute path); nothing else runs, and no arguments are passed (they would be the tenant's).
import { printableName } from "../packages/file-names";

export interface ExecPolicy {
  /** PORCH_PEPR_ALLOW_EXEC: exec functions run at all. */
  enabled: boolean;
  /** What a pipeline may write in `exec:` → the absolute path that runs. */
  allowed: ReadonlyMap<string, string>;
}

export const EXEC_DISABLED: ExecPolicy = { enabled: false, allowed: new Map() };

export const ALLOW_EXEC_VARIABLE = "PORCH_PEPR_ALLOW_EXEC";
export const EXEC_ALLOWLIST_VARIABLE = "PORCH_PEPR_EXEC_ALLOWLIST";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const UNSAFE_PATH_CHARACTER = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\\]/u;

function pathProblem(path: string): string | undefined {
  if (!path.startsWith("/")) return "is not an absolute path";
  if (UNSAFE_PATH_CHARACTER.test(path)) return "contains a control character or backslash";
  const segments = path.slice(1).split("/");
  if (segments.some(s => s === "" || s === "." || s === "..")) return "is not a normalized path";
  return undefined;
}

/**
 * Parses `/abs/path,name=/abs/path,...`: a bare absolute path is allowed as written, `name=path`
 * lets pipelines write `exec: name`. Bad entries are left out and reported.
 */
export function parseExecAllowlist(text: string | undefined): {
  allowed: Map<string, string>;
  problems: string[];
} {
  const allowed = new Map<string, string>();
  const problems: string[] = [];
  for (const raw of (text ?? "").split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    const name = eq < 0 ? entry : entry.slice(0, eq).trim();
    const path = eq < 0 ? entry : entry.slice(eq + 1).trim();
    const problem =
      eq >= 0 && !NAME.test(name)
        ? `name ${printableName(name)} must be letters, digits, '.', '_' or '-'`
        : pathProblem(path) && `path ${printableName(path)} ${pathProblem(path)}`;
    if (problem)
      problems.push(`${EXEC_ALLOWLIST_VARIABLE} entry ${printableName(entry)}: ${problem}`);
    else allowed.set(name, path);
  }
  return { allowed, problems };
}

/** The policy the operator's environment sets; problems are the allow-list's bad entries. */
export function execPolicyFromEnv(env: Record<string, string | undefined>): {
  policy: ExecPolicy;
  problems: string[];
} {
  const { allowed, problems } = parseExecAllowlist(env[EXEC_ALLOWLIST_VARIABLE]);
  return { policy: { enabled: env[ALLOW_EXEC_VARIABLE] === "true", allowed }, problems };
}

/** Why `exec` may not run under `policy`, or undefined when it may. */
export function execDenial(exec: string, policy: ExecPolicy): string | undefined {
  const what = `exec function ${printableName(exec)} is not allowed`;
  if (!policy.enabled) return `${what}: this operator does not run exec functions`;
  if (!policy.allowed.has(exec))
    return `${what}: it is not on the operator's exec allow-list (ask the administrator)`;
  return undefined;
}
