/**
 * Selectors as the API takes them in a list's query. Values may come from tenants' specs (a
 * package name, a repository), so field values are escaped as the API server's own
 * `fields.EscapeValue` does: a `,` or `=` in a value stays part of the value instead of adding
 * a requirement, and an empty value still selects ("spec.repository=" matches "").
 */

/** A map of equalities ("" means "has the label") or a selector string used as it is. */
export function labelSelector(
  value: Record<string, string> | string | undefined,
): string | undefined {
  if (value === undefined || typeof value === "string") return value || undefined;
  const terms = Object.entries(value).map(([k, v]) => (v === "" ? k : `${k}=${v}`));
  return terms.length > 0 ? terms.join(",") : undefined;
}

const escapeFieldValue = (value: string) =>
  value.replace(/\\/g, "\\\\").replace(/,/g, "\\,").replace(/=/g, "\\=");

/** A map of equalities (values escaped) or a selector string used as it is. */
export function fieldSelector(
  value: Record<string, string> | string | undefined,
): string | undefined {
  if (value === undefined || typeof value === "string") return value || undefined;
  const terms = Object.entries(value).map(([k, v]) => `${k}=${escapeFieldValue(v)}`);
  return terms.length > 0 ? terms.join(",") : undefined;
}
