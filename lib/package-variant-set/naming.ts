import { createHash } from "node:crypto";

const MAX_NAME = 63;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * `<set>-<downstream repo>-<downstream package>`, stable across reconciles
 * (docs/package-variant-sets.md, “Naming”).
 */
export function packageVariantIdentifier(setName: string, repo: string, pkg: string): string {
  return `${setName}-${repo}-${pkg}`;
}

/**
 * The PackageVariant name for an identifier: the identifier itself when it is a valid name of
 * at most 63 characters, else its first 54 characters, "-" and the first 8 hex digits of the
 * SHA-1 of the whole identifier. A nested package path (`apps/nginx`) has a "/" that no name
 * may hold; it takes the hashed form with "/" written as "-", the hash keeping it unique.
 */
export function packageVariantName(identifier: string): string {
  if (identifier.length <= MAX_NAME && DNS1123_SUBDOMAIN.test(identifier)) return identifier;
  const hash = createHash("sha1").update(identifier).digest("hex").slice(0, 8);
  const prefix = identifier
    .slice(0, 54)
    .replace(/\//g, "-")
    .replace(/[-.]+$/, "");
  return `${prefix}-${hash}`;
}
