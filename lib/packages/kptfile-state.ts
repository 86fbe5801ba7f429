// What a package's Kptfile says about the PackageRevision: readiness gates and package metadata
// (spec, written by the Kptfile field manager) and the package's conditions (status). Admission
// and the lifecycle controller check the gates on the PackageRevision, so they must be there.
import { KptfileError, parseKptfile } from "../kpt/kptfile";

export interface KptfileState {
  readinessGates: { conditionType: string }[];
  packageMetadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  packageConditions: { type: string; status: string; reason?: string; message?: string }[];
}

type Loose = Record<string, unknown>;

const isObject = (v: unknown): v is Loose =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function stringMap(v: unknown): Record<string, string> | undefined {
  if (!isObject(v)) return undefined;
  const entries = Object.entries(v).filter(([, value]) => typeof value === "string");
  return entries.length > 0 ? (Object.fromEntries(entries) as Record<string, string>) : undefined;
}

/**
 * What of the Kptfile's `status.conditions` surfaces as the revision's packageConditions: they
 * ride on every status apply of its controller, and a tenant writes the Kptfile (100 aliased
 * conditions of a 100 KB message made 10 MB of status, over the API server's limit, retried
 * for good). Kubernetes' own Condition allows a 316-character type and a 1,024-character
 * reason; messages are cut shorter here than its 32,768, as 64 of those would still be 2 MB.
 */
export const CONDITION_BOUNDS = { count: 64, type: 316, reason: 1024, message: 4096 } as const;

/** `value` cut to `max` characters, saying so. */
function cut(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

/** Reads the Kptfile text; a missing or unparsable Kptfile has no gates, metadata or conditions. */
export function kptfileState(kptfileText: string | undefined): KptfileState {
  let kptfile: Loose = {};
  try {
    kptfile = parseKptfile(kptfileText ?? "").doc.toJS() as Loose;
  } catch (error) {
    if (!(error instanceof KptfileError)) throw error;
  }
  const info = isObject(kptfile.info) ? kptfile.info : {};
  const metadata = isObject(kptfile.metadata) ? kptfile.metadata : {};
  const status = isObject(kptfile.status) ? kptfile.status : {};
  const seen = new Set<string>();
  const readinessGates = list(info.readinessGates)
    .map(g => (isObject(g) ? text(g.conditionType) : undefined))
    .filter((t): t is string => !!t && !seen.has(t) && !!seen.add(t))
    .map(conditionType => ({ conditionType }));
  const labels = stringMap(metadata.labels);
  const annotations = stringMap(metadata.annotations);
  const packageConditions = list(status.conditions)
    .flatMap(c => {
      if (!isObject(c) || !text(c.type) || !text(c.status)) return [];
      const reason = text(c.reason);
      const message = text(c.message);
      return [
        {
          type: cut(text(c.type) as string, CONDITION_BOUNDS.type),
          status: cut(text(c.status) as string, CONDITION_BOUNDS.type),
          reason: reason === undefined ? undefined : cut(reason, CONDITION_BOUNDS.reason),
          message: message === undefined ? undefined : cut(message, CONDITION_BOUNDS.message),
        },
      ];
    })
    .slice(0, CONDITION_BOUNDS.count);
  return {
    readinessGates,
    packageMetadata: { ...(labels && { labels }), ...(annotations && { annotations }) },
    packageConditions,
  };
}
