import {
  matchesImage,
  parseImagePattern,
  type ImagePattern,
} from "../../../../lib/fn/catalog/image-pattern";
import { parseImageReference } from "../../../../lib/fn/catalog/image-reference";

const DIGEST = `sha256:${"ab".repeat(32)}`;
const OTHER_DIGEST = `sha256:${"cd".repeat(32)}`;

function pattern(text: string): ImagePattern {
  const parsed = parseImagePattern(text);
  if ("problem" in parsed) throw new Error(`${text}: ${parsed.problem}`);
  return parsed;
}

function matches(patternText: string, image: string): boolean {
  const ref = parseImageReference(image);
  if ("problem" in ref) throw new Error(`${image}: ${ref.problem}`);
  return matchesImage(pattern(patternText), ref);
}

describe("image patterns: the name", () => {
  it.each([
    // `*` stays within one segment
    ["*/set-namespace:*", "gcr.io/set-namespace:v1", true],
    ["*/set-namespace:*", "kpt-fn/set-namespace:v1", true],
    ["*/set-namespace:*", "set-namespace:v1", false],
    ["*/set-namespace:*", "gcr.io/kpt-fn/set-namespace:v1", false],
    ["example.com/fns/set-*:*", "example.com/fns/set-labels:v1", true],
    ["example.com/fns/set-*:*", "example.com/fns/apply-setters:v1", false],
    ["example.com/fns/*-setters:*", "example.com/fns/apply-setters:v1", true],
    ["example.com/*/x:*", "example.com/a/b/x:v1", false],
    // `**` spans any number of segments, none included
    ["**/set-namespace:*", "set-namespace", true],
    ["**/set-namespace:*", "gcr.io/kpt-fn/set-namespace:v0.4.1", true],
    ["**/set-namespace:*", "ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4", true],
    ["**/set-namespace:*", "gcr.io/kpt-fn/set-namespace-evil:v1", false],
    ["**/set-namespace:*", "gcr.io/set-namespace/evil:v1", false],
    ["example.com/**:*", "example.com/a/b/c:v1", true],
    // A registry in the pattern is never a repository name of the default registry
    ["example.com/**:*", "example.com:v1", false],
    ["example.com/**:*", "example.com/x:v1", true],
    ["*.example.com/**:*", "eu.example.com/a/b:v1", true],
    ["*.example.com/**:*", "eu.example.com:v1", false],
    ["localhost/**:*", "localhost:v1", false],
    ["example.com:*", "example.com:v1", true],
    ["example.com/**/fn:*", "example.com/fn:v1", true],
    ["example.com/**/fn:*", "example.com/a/b/fn:v1", true],
    ["example.com/**/fn:*", "example.org/a/fn:v1", false],
    ["**/team-*/**/fn:*", "registry.local/org/team-a/x/y/fn:v1", true],
    // Exact names, and registry hosts compared without case
    ["gcr.io/kpt-fn/set-labels:*", "gcr.io/kpt-fn/set-labels:v1", true],
    ["gcr.io/kpt-fn/set-labels:*", "GCR.IO/kpt-fn/set-labels:v1", true],
    ["GCR.io/kpt-fn/set-labels:*", "gcr.io/kpt-fn/set-labels:v1", true],
    ["gcr.io/kpt-fn/set-labels:*", "gcr.io/kpt-fn/set-labels2:v1", false],
    ["localhost:5000/fns/*:*", "localhost:5000/fns/a:v1", true],
    ["localhost:5000/fns/*:*", "localhost:5001/fns/a:v1", false],
    ["*:5000/fns/*:*", "registry.local:5000/fns/a:v1", true],
  ])("%s matches %s: %s", (p, image, expected) => {
    expect(matches(p, image)).toBe(expected);
  });

  it("answers the near-misses that make backtracking matchers exponential", () => {
    const name = "a".repeat(120);
    const deep = `${Array.from({ length: 60 }, () => "a").join("/")}/${name}:v1`;
    expect(matches("**/*a*a*b:*", `x/${name}:v1`)).toBe(false);
    expect(matches("**/*a*a*:*", `x/${name}:v1`)).toBe(true);
    expect(matches("**/a/**/b:*", deep)).toBe(false);
    expect(matches("**/a/**/a*:*", deep)).toBe(true);
  });
});

describe("image patterns: the tag", () => {
  it.each([
    // `*`: any tag, and none (a bare name, or a digest alone)
    ["x/fn:*", "x/fn", true],
    ["x/fn:*", "x/fn:latest", true],
    ["x/fn:*", `x/fn@${DIGEST}`, true],
    // an exact tag
    ["x/fn:v1.2.3", "x/fn:v1.2.3", true],
    ["x/fn:v1.2.3", "x/fn:1.2.3", false],
    ["x/fn:v0.4", "x/fn:v0.4", true],
    ["x/fn:v0.4", "x/fn:v0.4.1", false],
    ["x/fn:latest", "x/fn", false],
    // ranges: only tags that are full versions match, with or without v
    ["x/fn:>=1.2.0 <2", "x/fn:v1.2.0", true],
    ["x/fn:>=1.2.0 <2", "x/fn:1.9.9", true],
    ["x/fn:>=1.2.0 <2", "x/fn:v2.0.0", false],
    ["x/fn:>=1.2.0 <2", "x/fn:v1.1.9", false],
    ["x/fn:>=1.2.0 <2", "x/fn:v2.0.0-rc.1", false],
    ["x/fn:>=1.2.0 <2", "x/fn:v1.5", false],
    ["x/fn:>=1.2.0 <2", "x/fn:latest", false],
    ["x/fn:>=1.2.0 <2", "x/fn", false],
    ["x/fn:>=1.2.0 <2", `x/fn@${DIGEST}`, false],
    ["x/fn:1.2.x", "x/fn:v1.2.7", true],
    ["x/fn:1.2.x", "x/fn:v1.3.0", false],
    ["x/fn:v1.*", "x/fn:v1.0.0", true],
    ["x/fn:v1.*", "x/fn:v1.99.3", true],
    ["x/fn:v1.*", "x/fn:v2.0.0", false],
    ["x/fn:~1.2", "x/fn:1.2.9", true],
    ["x/fn:~1.2", "x/fn:1.3.0", false],
    ["x/fn:~1.2.3", "x/fn:1.2.2", false],
    ["x/fn:^1.2", "x/fn:1.9.0", true],
    ["x/fn:^1.2", "x/fn:2.0.0", false],
    ["x/fn:^0.2.3", "x/fn:0.2.9", true],
    ["x/fn:^0.2.3", "x/fn:0.3.0", false],
    ["x/fn:^0.0.3", "x/fn:0.0.4", false],
    ["x/fn:>1.2", "x/fn:1.2.9", false],
    ["x/fn:>1.2", "x/fn:1.3.0", true],
    ["x/fn:<=1.2", "x/fn:1.2.9", true],
    ["x/fn:<=1.2", "x/fn:1.3.0", false],
    ["x/fn:1.2 - 1.4", "x/fn:1.4.9", true],
    ["x/fn:1.2 - 1.4", "x/fn:1.5.0", false],
    ["x/fn:1.2.3 - 1.4.0", "x/fn:1.4.0", true],
    ["x/fn:<1 || >=3", "x/fn:0.9.0", true],
    ["x/fn:<1 || >=3", "x/fn:2.0.0", false],
    ["x/fn:>= 1.2.0", "x/fn:v1.2.0", true],
    // prereleases only where a comparator names one of the same version
    ["x/fn:>=1.2.0-rc.1 <2", "x/fn:1.2.0-rc.2", true],
    ["x/fn:>=1.2.0-rc.1 <2", "x/fn:1.3.0-rc.1", false],
    ["x/fn:>=1.2.0-rc.1 <2", "x/fn:1.2.0-rc.0", false],
    ["x/fn:>=1.2.0-rc.1 <2", "x/fn:1.2.0", true],
    ["x/fn:^1.2.0", "x/fn:1.3.0-beta", false],
  ])("%s matches %s: %s", (p, image, expected) => {
    expect(matches(p, image)).toBe(expected);
  });
});

describe("image patterns: digests", () => {
  it("pins the content: only that digest matches, with or without a tag", () => {
    expect(matches(`x/fn@${DIGEST}`, `x/fn@${DIGEST}`)).toBe(true);
    expect(matches(`x/fn@${DIGEST}`, `x/fn:v1@${DIGEST}`)).toBe(true);
    expect(matches(`x/fn@${DIGEST}`, `x/fn@${OTHER_DIGEST}`)).toBe(false);
    expect(matches(`x/fn@${DIGEST}`, "x/fn:v1")).toBe(false);
    expect(matches(`x/fn:v1@${DIGEST}`, `x/fn:v1@${DIGEST}`)).toBe(true);
    expect(matches(`x/fn:v1@${DIGEST}`, `x/fn@${DIGEST}`)).toBe(false);
    expect(matches(`**/fn@${DIGEST}`, `a/b/fn@${DIGEST}`)).toBe(true);
  });

  it("leaves a digest alone when the pattern names none", () => {
    expect(matches("x/fn:v1", `x/fn:v1@${DIGEST}`)).toBe(true);
    expect(matches("x/fn:^1.0.0", `x/fn:v1.0.0@${DIGEST}`)).toBe(true);
  });
});

describe("image patterns: what is refused", () => {
  it.each([
    ["x".repeat(257), "is longer than 256 characters"],
    ["example.com/fns/*", `needs a tag pattern after ':' ("*" for any tag) or a digest after '@'`],
    ["example.com/fns/**b:*", `"**" must be a whole segment, not part of "**b"`],
    ["example.com/***/x:*", `"**" must be a whole segment, not part of "***"`],
    ["example.com/Fns/x:*", `path segment "Fns" may have only lowercase letters`],
    ["example.com//x:*", "has an empty path segment"],
    ["example .com/x:*", "has a space in the name"],
    ["example.com/x\u0000:*", "may contain only printable ASCII characters"],
    ["example.com/ẋ:*", "may contain only printable ASCII characters"],
    ["*/*/*/*/*:*", "has more than 4 wildcards in the name"],
    ["**/a*b*c*d*e:*", "has more than 4 wildcards in the name"],
    ["x/fn:>=1.2.0 <two", `tag range ">=1.2.0 <two" "<two" is not a version comparator`],
    ["x/fn:1.x.3", `tag range "1.x.3" "1.x.3" is not a version comparator`],
    ["x/fn:v1 ||", `tag range "v1 ||" has an empty alternative around ||`],
    ["x/fn:v1:v2", `tag "v1:v2" may have only letters`],
    ["x/fn@sha256:abc", "a sha256 digest is 64 lowercase hex digits"],
    [`x/fn@sha256:${"AB".repeat(32)}`, "a sha256 digest is 64 lowercase hex digits"],
    ["x/fn@nodigest", `digest "nodigest" is not algorithm:encoded`],
  ])("%j: %s", (text, problem) => {
    const parsed = parseImagePattern(text);
    expect("problem" in parsed && parsed.problem).toContain(problem);
  });

  it("refuses a range with more than 32 comparators", () => {
    const range = Array.from({ length: 17 }, (_, i) => `>=${i}.0.0 <${i + 1}`).join(" || ");
    const parsed = parseImagePattern(`x/fn:${range}`.slice(0, 256));
    expect("problem" in parsed).toBe(true);
  });
});

describe("image references", () => {
  it("reads host, path, tag and digest, the tag after the last slash", () => {
    expect(parseImageReference(`Localhost:5000/a/b:v1@${DIGEST}`)).toEqual({
      text: `Localhost:5000/a/b:v1@${DIGEST}`,
      segments: ["localhost:5000", "a", "b"],
      hasHost: true,
      tag: "v1",
      digest: DIGEST,
    });
    expect(parseImageReference("set-namespace")).toEqual({
      text: "set-namespace",
      segments: ["set-namespace"],
      hasHost: false,
    });
  });

  it("is bounded: a name of a megabyte is refused before anything reads it", () => {
    expect(parseImageReference("a".repeat(1 << 20))).toEqual({
      problem: "is longer than 512 characters",
    });
    expect(parseImageReference(`${"a/".repeat(200)}fn`)).toEqual({
      problem: "the name is longer than 255 characters",
    });
  });
});
