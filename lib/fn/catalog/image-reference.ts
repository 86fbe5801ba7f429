// Image references as a pipeline writes them (`[host[:port]/]path[:tag][@digest]`), read with
// the distribution reference grammar. Pipelines are tenant-written: a reference that is not
// well formed is refused before any pattern sees it, so nothing matches one by accident.

/** Longest reference read (the grammar's name limit is 255; tag and digest come on top). */
export const MAX_REFERENCE_LENGTH = 512;
const MAX_NAME_LENGTH = 255;
const MAX_TAG_LENGTH = 128;

export interface ImageReference {
  /** The reference as written. */
  text: string;
  /** Path segments; the first is the registry host when `hasHost`, lowercased. */
  segments: string[];
  /** Whether the first segment names a registry (else the image is the default registry's). */
  hasHost: boolean;
  tag?: string;
  /** `algorithm:encoded`, e.g. `sha256:…`. */
  digest?: string;
}

// Fixed expressions, none built from input; separators and alphanumerics are disjoint, so each
// matches in linear time.
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;
const PATH_SEGMENT = /^[a-z0-9]+(?:[._-]+[a-z0-9]+)*$/;
const HOST = /^[a-z0-9]+(?:[.-]+[a-z0-9]+)*(?::[0-9]{1,5})?$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[A-Za-z0-9=_-]+$/;
const HEX_LENGTHS: Record<string, number> = { sha256: 64, sha512: 128 };

/** Whether the first of several segments names a registry host (the distribution rule). */
export function isHostSegment(segment: string): boolean {
  return segment.includes(".") || segment.includes(":") || segment === "localhost";
}

/** Splits `name[:tag][@digest]`: the tag follows the last `/`, so a host's port is not one. */
export function splitReference(text: string): { name: string; tag?: string; digest?: string } {
  const at = text.indexOf("@");
  const beforeDigest = at < 0 ? text : text.slice(0, at);
  const digest = at < 0 ? undefined : text.slice(at + 1);
  const colon = beforeDigest.indexOf(":", beforeDigest.lastIndexOf("/") + 1);
  if (colon < 0) return { name: beforeDigest, digest };
  return { name: beforeDigest.slice(0, colon), tag: beforeDigest.slice(colon + 1), digest };
}

export function digestProblem(digest: string): string | undefined {
  if (!DIGEST.test(digest)) return `digest ${JSON.stringify(digest)} is not algorithm:encoded`;
  const [algorithm, encoded] = digest.split(":");
  const length = HEX_LENGTHS[algorithm];
  if (length !== undefined && !(encoded.length === length && /^[0-9a-f]+$/.test(encoded)))
    return `a ${algorithm} digest is ${length} lowercase hex digits`;
  return undefined;
}

export function tagProblem(tag: string): string | undefined {
  if (tag.length > MAX_TAG_LENGTH) return `the tag is longer than ${MAX_TAG_LENGTH} characters`;
  if (!TAG.test(tag))
    return `tag ${JSON.stringify(tag)} may have only letters, digits, '_', '.' and '-'`;
  return undefined;
}

function segmentProblem(segment: string, host: boolean): string | undefined {
  if (segment === "") return "has an empty path segment";
  if (host ? HOST.test(segment.toLowerCase()) : PATH_SEGMENT.test(segment)) return undefined;
  return host
    ? `registry host ${JSON.stringify(segment)} is not a host name with an optional port`
    : `path segment ${JSON.stringify(segment)} may have only lowercase letters, digits and '.', '_' or '-' between them`;
}

/** The reference, or why it is not one (the problem quotes only printable ASCII). */
export function parseImageReference(text: string): ImageReference | { problem: string } {
  if (text === "") return { problem: "is empty" };
  if (text.length > MAX_REFERENCE_LENGTH)
    return { problem: `is longer than ${MAX_REFERENCE_LENGTH} characters` };
  if (!PRINTABLE_ASCII.test(text))
    return { problem: "may contain only printable ASCII characters, without spaces" };
  const { name, tag, digest } = splitReference(text);
  if (digest !== undefined) {
    const problem = digestProblem(digest);
    if (problem) return { problem };
  }
  if (tag !== undefined) {
    const problem = tagProblem(tag);
    if (problem) return { problem };
  }
  if (name.length > MAX_NAME_LENGTH)
    return { problem: `the name is longer than ${MAX_NAME_LENGTH} characters` };
  const segments = name.split("/");
  const hasHost = segments.length > 1 && isHostSegment(segments[0]);
  for (const [i, segment] of segments.entries()) {
    const problem = segmentProblem(segment, hasHost && i === 0);
    if (problem) return { problem };
  }
  // Host names are case-insensitive; repository paths are lowercase by the grammar above.
  if (hasHost) segments[0] = segments[0].toLowerCase();
  return {
    text,
    segments,
    hasHost,
    ...(tag !== undefined && { tag }),
    ...(digest && { digest }),
  };
}

/**
 * The image a node pulls for a reference: with a digest the tag is ignored (`x:1.2@sha256:D` and
 * `x:9@sha256:D` are one image), so it is dropped; a reference that does not parse is returned
 * as written. Function Pods are keyed by it, so respellings of one image share one Pod.
 */
export function pulledImage(text: string): string {
  const ref = parseImageReference(text);
  if ("problem" in ref || ref.digest === undefined) return text;
  return `${ref.segments.join("/")}@${ref.digest}`;
}
