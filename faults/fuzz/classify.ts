// How one answer of the API server is judged. The rule for "names a field path", for the API
// server's schema denials and the webhook's alike: the Status message, or the field of one of
// its details.causes, contains `spec`, `metadata` or `status` followed by at least one
// `.field` or `[index]` segment, or by ": " (Kubernetes' field error about that root field
// itself, "spec: Invalid value: ..."), standing at the start, after a space, a bracket, a
// quote or a dot ("spec.targets[0].template.labelExprs[1].valueExpr: ...", "must specify at
// least one item in spec.targets"); a root followed by "." and a quote is its field named ""
// (the API server's strict decoding: unknown field "spec."). A kind or group
// ("PackageVariant.config.porch.kpt.dev") does not count: it says what, not where; nor does a
// Go type ("ObjectMeta.name").

export type Verdict = "allowed" | "denied" | "serverError" | "unnamedDenial";

/** Pepr's wording when a validator threw instead of answering. */
export const ACTION_FAILED = "Action failed with error";

const FIELD_PATH =
  /(?:^|[\s[("'`.])(?:spec|metadata|status)(?:(?:\.[A-Za-z_$][\w$-]*|\[[^\]]*\])+|: |\.(?=["'`]))/;

interface Status {
  message?: string;
  details?: { causes?: { field?: string; message?: string }[] };
}

function parseStatus(body: string): Status {
  try {
    const parsed = JSON.parse(body) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Status) : {};
  } catch {
    return {};
  }
}

export const namesFieldPath = (text: string): boolean => FIELD_PATH.test(text);

/** The denial's message (and causes), what a reader of a failed case is shown. */
export function denialText(body: string): string {
  const status = parseStatus(body);
  const causes = (status.details?.causes ?? []).map(c => `${c.field ?? ""} ${c.message ?? ""}`);
  return [status.message ?? body, ...causes].join(" | ");
}

export function classify(status: number, body: string): Verdict {
  if (status >= 500 || status === 0 || body.includes(ACTION_FAILED)) return "serverError";
  if (status >= 200 && status < 300) return "allowed";
  const parsed = parseStatus(body);
  const named =
    namesFieldPath(parsed.message ?? "") ||
    (parsed.details?.causes ?? []).some(c => namesFieldPath(c.field ?? ""));
  return named ? "denied" : "unnamedDenial";
}
