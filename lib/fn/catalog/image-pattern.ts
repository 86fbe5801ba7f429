// The image patterns of the function catalog: `<name glob>:<tag pattern>[@<digest>]` or
// `<name glob>@<digest>`. In the name, `*` matches within one `/`-separated segment and a `**`
// segment matches any number of segments (none included); the tag pattern is `*` (any tag, or
// none), a version range, or one exact tag. Matching walks the pattern; no regular expression
// is built from it, and the wildcards per pattern are few, so a match costs at most a few
// passes over the (bounded) reference.
import {
  digestProblem,
  isHostSegment,
  splitReference,
  tagProblem,
  type ImageReference,
} from "./image-reference";
import { parseRange, parseVersion, satisfies, type VersionRange } from "./semver";

export const MAX_PATTERN_LENGTH = 256;
export const MAX_WILDCARDS = 4;

export type TagPattern =
  | { kind: "any" }
  | { kind: "exact"; tag: string }
  | { kind: "range"; range: VersionRange };

export interface ImagePattern {
  text: string;
  /** `**`, or a segment glob whose `*` stays within the segment. */
  segments: string[];
  /**
   * The first segment names a registry host (it has a `.` or `:`, or is `localhost`): it then
   * matches only a reference's host, never a bare repository name (`example.com/**:*` is not
   * the default registry's image `example.com:v1`).
   */
  hasHost: boolean;
  tag: TagPattern;
  digest?: string;
}

const RANGE_CHARACTERS = new Set(["<", ">", "=", "~", "^", "|", " ", "*"]);
const GLOB_SEGMENT = /^[a-z0-9._*-]+$/;
const GLOB_HOST = /^[a-z0-9.*-]+(?::[0-9*]+)?$/;

/** `1.x`, `v1.2.X`: a valid tag that reads as a version range. */
function isXRange(tag: string): boolean {
  const parts = (tag.startsWith("v") ? tag.slice(1) : tag).split(".");
  const x = (p: string) => p === "x" || p === "X";
  return parts.length <= 3 && parts.some(x) && parts.every(p => x(p) || /^[0-9]+$/.test(p));
}

function parseTagPattern(text: string): TagPattern | { problem: string } {
  if (text === "*") return { kind: "any" };
  if ([...text].some(ch => RANGE_CHARACTERS.has(ch)) || isXRange(text)) {
    const range = parseRange(text);
    return "problem" in range
      ? { problem: `tag range ${JSON.stringify(text)} ${range.problem}` }
      : { kind: "range", range };
  }
  const problem = tagProblem(text);
  return problem ? { problem } : { kind: "exact", tag: text };
}

function segmentProblem(segment: string, host: boolean): string | undefined {
  if (segment === "") return "has an empty path segment";
  if (segment === "**") return undefined;
  if (segment.includes("**"))
    return `"**" must be a whole segment, not part of ${JSON.stringify(segment)}`;
  if (host ? GLOB_HOST.test(segment) : GLOB_SEGMENT.test(segment)) return undefined;
  return host
    ? `registry host ${JSON.stringify(segment)} may have only letters, digits, '.', '-', '*' and a port`
    : `path segment ${JSON.stringify(segment)} may have only lowercase letters, digits, '.', '_', '-' and '*'`;
}

/** Wildcards of a name: each `**` segment and each run of `*` in a segment. */
function wildcards(segments: string[]): number {
  return segments.reduce(
    (n, s) => n + (s === "**" ? 1 : s.split(/[^*]+/).filter(Boolean).length),
    0,
  );
}

/** The pattern, or why it is not one. */
export function parseImagePattern(text: string): ImagePattern | { problem: string } {
  if (text.length > MAX_PATTERN_LENGTH)
    return { problem: `is longer than ${MAX_PATTERN_LENGTH} characters` };
  if ([...text].some(ch => ch < " " || ch > "~"))
    return { problem: "may contain only printable ASCII characters" };
  const { name, tag, digest } = splitReference(text);
  if (tag === undefined && digest === undefined)
    return { problem: "needs a tag pattern after ':' (\"*\" for any tag) or a digest after '@'" };
  if (digest !== undefined) {
    const problem = digestProblem(digest);
    if (problem) return { problem };
  }
  const tagPattern = tag === undefined ? { kind: "any" as const } : parseTagPattern(tag);
  if ("problem" in tagPattern) return tagPattern;
  if (name.includes(" ")) return { problem: "has a space in the name" };
  const segments = name.split("/");
  const hasHost = segments.length > 1 && isHostSegment(segments[0]);
  // Registry hosts are case-insensitive: references and patterns compare them lowercased.
  if (hasHost) segments[0] = segments[0].toLowerCase();
  for (const [i, segment] of segments.entries()) {
    const problem = segmentProblem(segment, hasHost && i === 0);
    if (problem) return { problem };
  }
  if (wildcards(segments) > MAX_WILDCARDS)
    return { problem: `has more than ${MAX_WILDCARDS} wildcards in the name` };
  return { text, segments, hasHost, tag: tagPattern, ...(digest && { digest }) };
}

/**
 * Greedy wildcard matching with one backtrack point, the classic linear-space algorithm: it is
 * exact when every non-wildcard element matches exactly one element, true of characters in a
 * segment and of segments in a name. Costs at most (pattern length × text length) steps.
 */
function wildcardMatch<P, T>(
  pattern: readonly P[],
  text: readonly T[],
  isWildcard: (p: P) => boolean,
  matches: (p: P, t: T) => boolean,
): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && isWildcard(pattern[p])) {
      star = p++;
      resume = t;
    } else if (p < pattern.length && matches(pattern[p], text[t])) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && isWildcard(pattern[p])) p++;
  return p === pattern.length;
}

const globMatch = (glob: string, segment: string): boolean =>
  wildcardMatch(
    [...glob],
    [...segment],
    ch => ch === "*",
    (a, b) => a === b,
  );

function tagMatches(pattern: TagPattern, ref: ImageReference): boolean {
  switch (pattern.kind) {
    case "any":
      return true;
    case "exact":
      return ref.tag === pattern.tag;
    case "range": {
      const version = ref.tag === undefined ? undefined : parseVersion(ref.tag);
      return version !== undefined && satisfies(version, pattern.range);
    }
  }
}

const namesMatch = (pattern: readonly string[], segments: readonly string[]): boolean =>
  wildcardMatch(pattern, segments, s => s === "**", globMatch);

/** Whether the (parsed, valid) reference matches the pattern. */
export function matchesImage(pattern: ImagePattern, ref: ImageReference): boolean {
  if (pattern.digest !== undefined && ref.digest !== pattern.digest) return false;
  if (!tagMatches(pattern.tag, ref)) return false;
  if (!pattern.hasHost) return namesMatch(pattern.segments, ref.segments);
  return (
    ref.hasHost &&
    globMatch(pattern.segments[0], ref.segments[0]) &&
    namesMatch(pattern.segments.slice(1), ref.segments.slice(1))
  );
}
