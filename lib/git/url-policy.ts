// Which git URLs the operator may contact. One pure rule, used by admission (Repository and
// PackageRevision cloneFrom.git) and again by the git clients right before they connect, since
// the webhook may have been down when the object was written. Every tenant's URL is hostile:
// the operator's network position (cloud metadata, link-local services) must not be reachable
// through it, and credentials go only in secretRef, never in the URL.
import { isIP } from "node:net";

/** http: never, only to loopback hosts (the local embedded default), or to any host. */
export type HttpAllowance = "none" | "loopback" | "any";

export interface GitUrlPolicy {
  http: HttpAllowance;
  file: boolean;
}

/** Without configuration only https is allowed. */
export const STRICT_URL_POLICY: GitUrlPolicy = { http: "none", file: false };

export const ALLOW_HTTP_ENV = "PORCH_PEPR_GIT_ALLOW_HTTP";
export const ALLOW_FILE_ENV = "PORCH_PEPR_GIT_ALLOW_FILE";

export const USERINFO_PROBLEM = "credentials in the URL are not allowed; use secretRef";

/** Host names of cloud metadata services (they resolve to link-local or provider addresses). */
const METADATA_HOSTS = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.com",
  "metadata.tencentyun.com",
]);

/** Metadata addresses outside the link-local ranges (Alibaba, Azure wire server, AWS IPv6). */
const METADATA_ADDRESSES = new Set(["100.100.100.200", "168.63.129.16", "fd00:ec2::254"]);

/** The policy the operator configured: PORCH_PEPR_GIT_ALLOW_HTTP and PORCH_PEPR_GIT_ALLOW_FILE. */
export function gitUrlPolicyFromEnv(env: NodeJS.ProcessEnv): GitUrlPolicy {
  const http = (env[ALLOW_HTTP_ENV] ?? "").trim().toLowerCase();
  const file = (env[ALLOW_FILE_ENV] ?? "").trim().toLowerCase();
  return {
    http: http === "loopback" || http === "any" ? http : "none",
    file: file === "true" || file === "1" || file === "yes",
  };
}

/**
 * Why `url` may not be used as a git remote, or undefined when it may. Checks the scheme, the
 * userinfo and the host as written; the address a name resolves to is checked at connect time
 * by addressProblem.
 */
export function gitUrlProblem(url: string, policy: GitUrlPolicy): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url.trim()))
    return `${JSON.stringify(redact(url))} is not a URL; use https://host/path`;
  // The policy reads the URL as WHATWG does, git and curl read the same string otherwise: "\"
  // is "/" to one and part of a user name to the other ("https://good.example\@169.254.169.254"
  // connects to the second host), tabs and newlines vanish for one only. Refuse what they read
  // differently rather than guess which reading git will use.
  if (/[\\\s\p{Cc}]/u.test(url))
    return "the URL contains a backslash, whitespace or a control character; write it as https://host/path";
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return `${JSON.stringify(redact(url))} is not a valid URL`;
  }
  if (parsed.username !== "" || parsed.password !== "") return USERINFO_PROBLEM;
  const scheme = parsed.protocol.slice(0, -1);
  if (scheme === "file") {
    if (!policy.file)
      return `file URLs are not allowed by the operator's configuration (${ALLOW_FILE_ENV}); use https`;
    return parsed.host === "" ? undefined : "a file URL must not name a host";
  }
  if (scheme !== "https" && scheme !== "http")
    return `URL scheme "${scheme}" is not supported; use https`;
  if (parsed.hostname === "") return "the URL has no host";
  const host = hostOf(parsed);
  const forbidden = forbiddenHostProblem(host);
  if (forbidden) return forbidden;
  if (scheme === "http") {
    if (policy.http === "none")
      return `http URLs are not allowed by the operator's configuration (${ALLOW_HTTP_ENV}); use https`;
    if (policy.http === "loopback" && !isLoopbackName(host))
      return `http is allowed only to loopback hosts by the operator's configuration (${ALLOW_HTTP_ENV}=loopback); use https`;
  }
  return undefined;
}

/**
 * Why the operator may not connect to `address` (what the URL's host resolved to), or
 * undefined. `protocol` is the URL's ("http:" or "https:").
 */
export function addressProblem(
  address: string,
  protocol: string,
  policy: GitUrlPolicy,
): string | undefined {
  const ip = unmapped(address);
  if (isForbiddenAddress(ip))
    return `the git host resolves to ${ip}, a link-local or cloud metadata address, which is never allowed`;
  if (protocol === "http:" && policy.http !== "any" && !isLoopbackAddress(ip))
    return `http is allowed only to loopback hosts by the operator's configuration (${ALLOW_HTTP_ENV}=${policy.http}); the git host resolves to ${ip}`;
  return undefined;
}

/** The URL without userinfo, for messages. */
export function redact(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1");
}

function hostOf(url: URL): string {
  // URL keeps IPv6 literals in brackets and may keep a trailing dot on names.
  return url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

function forbiddenHostProblem(host: string): string | undefined {
  if (METADATA_HOSTS.has(host))
    return `host "${host}" is a cloud metadata service, which is never allowed`;
  if (isIP(host) !== 0 && isForbiddenAddress(unmapped(host)))
    return `host "${host}" is a link-local or cloud metadata address, which is never allowed`;
  return undefined;
}

function isLoopbackName(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  return isIP(host) !== 0 && isLoopbackAddress(unmapped(host));
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d or its hex form) as the IPv4 address it is. */
function unmapped(address: string): string {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, "");
  const dotted = /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:0*:)*:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return lower;
}

function ipv4Octets(address: string): number[] | undefined {
  if (isIP(address) !== 4) return undefined;
  return address.split(".").map(Number);
}

/** The first 16 bits of an IPv6 address, or undefined for anything else. */
function ipv6FirstGroup(address: string): number | undefined {
  if (isIP(address) !== 6) return undefined;
  const first = address.startsWith("::") ? "0" : address.split(":")[0];
  return parseInt(first, 16);
}

function isForbiddenAddress(address: string): boolean {
  if (METADATA_ADDRESSES.has(address)) return true;
  const v4 = ipv4Octets(address);
  // 169.254.0.0/16 link-local (169.254.169.254 is the metadata service of most clouds);
  // 0.0.0.0/8 reaches the local host on Linux.
  if (v4) return (v4[0] === 169 && v4[1] === 254) || v4[0] === 0;
  const group = ipv6FirstGroup(address);
  if (group === undefined) return false;
  // fe80::/10 link-local; "::" (unspecified) reaches the local host.
  return (group & 0xffc0) === 0xfe80 || /^[0:]+$/.test(address);
}

function isLoopbackAddress(address: string): boolean {
  const v4 = ipv4Octets(address);
  if (v4) return v4[0] === 127;
  return isIP(address) === 6 && /^(0*:)*:?0*1$/.test(address);
}
