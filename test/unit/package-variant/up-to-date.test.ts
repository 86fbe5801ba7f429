import { findOldUpstream, isUpToDate, lockedUpstream } from "../../../lib/package-variant";
import { revision, upstreamRevision } from "./fixtures";

const downstream = (lockRef?: string) =>
  revision({ ws: "packagevariant-1", lifecycle: "Published", revision: 1, lockRef });
const draftUpstream = revision({ repo: "blueprints", ws: "wip", lifecycle: "Draft", owner: false });

describe("lockedUpstream", () => {
  it.each([
    [undefined, { kind: "unknown" }],
    ["", { kind: "unknown" }],
    ["nginx/v3", { kind: "revision", ref: "nginx/v3", path: "nginx", revision: 3 }],
    [
      "refs/tags/dir/nginx/v12",
      { kind: "revision", ref: "refs/tags/dir/nginx/v12", path: "dir/nginx", revision: 12 },
    ],
    ["v2", { kind: "revision", ref: "v2", path: "", revision: 2 }],
    ["nginx/main", { kind: "revision", ref: "nginx/main", path: "nginx", revision: -1 }],
    [
      "drafts/nginx/wip",
      { kind: "draft", ref: "drafts/nginx/wip", path: "nginx", workspace: "wip" },
    ],
  ])("%s", (ref, expected) => {
    expect(lockedUpstream(downstream(ref))).toEqual(expected);
  });
});

describe("isUpToDate", () => {
  it.each([
    ["no lock: assumed up to date", undefined, upstreamRevision(2), true],
    ["same revision", "nginx/v2", upstreamRevision(2), true],
    [
      "same revision, package under a repository directory",
      "catalog/nginx/v2",
      upstreamRevision(2),
      true,
    ],
    ["older revision", "nginx/v1", upstreamRevision(2), false],
    ["newer revision (downgrade)", "nginx/v3", upstreamRevision(2), false],
    ["another package with the same number", "redis/v2", upstreamRevision(2), false],
    ["a draft upstream ref", "drafts/nginx/wip", upstreamRevision(2), false],
    ["the very draft selected by workspaceName", "drafts/nginx/wip", draftUpstream, true],
    ["a non-revision ref", "nginx/main", upstreamRevision(2), false],
  ])("%s → %s", (_, ref, upstream, expected) => {
    expect(isUpToDate(downstream(ref), upstream)).toBe(expected);
  });
});

describe("findOldUpstream", () => {
  const revisions = [
    upstreamRevision(1),
    upstreamRevision(2),
    upstreamRevision(1, "redis"),
    revision({ repo: "blueprints", ws: "wip", lifecycle: "Published", revision: 3, owner: false }),
  ];
  const selector = { repo: "blueprints", package: "nginx" };
  it.each([
    ["nginx/v1", { found: "blueprints.nginx.v1" }],
    ["catalog/redis/v1", { found: "blueprints.redis.v1" }],
    ["drafts/nginx/wip", { found: "blueprints.nginx.wip" }],
    [
      "nginx/v9",
      { error: "could not find upstream package revision 'nginx/9' in repo 'blueprints'" },
    ],
    [
      "drafts/nginx/gone",
      {
        error:
          "could not find upstream package revision 'nginx/workspace gone' in repo 'blueprints'",
      },
    ],
    ["nginx/v0", { error: "upstream cannot be published with revision number 0" }],
    [
      "nginx/main",
      {
        error:
          'downstream "edge01.nginx.packagevariant-1" has upstream lock ref "nginx/main", which names no published revision',
      },
    ],
  ])("%s", (ref, expected) => {
    const result = findOldUpstream(downstream(ref), selector, revisions);
    expect("found" in result ? { found: result.found.metadata?.name } : result).toEqual(expected);
  });
});
