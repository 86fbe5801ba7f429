// Kubernetes' own syntax rules for names, label keys and values (apimachinery validation), so a
// PackageVariant that would later produce an invalid PackageRevision is refused up front.

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Problems of a label or annotation key (`[prefix/]name`), or undefined when valid. */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split("/");
  if (parts.length > 2) return "a qualified name must consist of at most one '/'";
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (prefix !== undefined && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) {
    return "prefix part must be a lowercase RFC 1123 subdomain";
  }
  if (name.length === 0 || name.length > 63) return "name part must be 1 to 63 characters long";
  if (!QUALIFIED_NAME_PART.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value === "") return undefined;
  if (value.length > 63) return "must be no more than 63 characters";
  return QUALIFIED_NAME_PART.test(value)
    ? undefined
    : "a valid label value must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
}

/**
 * A package path becomes part of PackageRevision object names (`<repo>.<a.b.c>.<workspace>`),
 * so each segment must be an RFC 1123 label.
 */
export function packagePathProblem(path: string): string | undefined {
  const segments = path.split("/");
  return segments.every(s => DNS1123_LABEL.test(s) && s.length <= 63)
    ? undefined
    : "each path segment must be a lowercase RFC 1123 label (a-z, 0-9 and '-', starting and ending with a letter or digit)";
}

export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

export function isDns1123Subdomain(value: string): boolean {
  return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
}

/**
 * apimachinery's IsValidPathSegmentName: an object name becomes a segment of a URL path, so
 * `.`, `..`, `/` and `%` would make a GET read another path (another kind, another namespace).
 */
export function pathSegmentNameProblem(name: string): string | undefined {
  if (name === "." || name === "..") return `may not be '${name}'`;
  if (/[/%]/.test(name)) return "may not contain '/' or '%'";
  return undefined;
}
