import {
  DEFAULT_CONTENT_LIMITS,
  gitContentLimitsFromEnv,
  revisionCountProblem,
} from "../../../lib/git/content-limits";
import { revisionRefCount } from "../../../lib/git/discovery";

// One Repository mirrors at most PORCH_PEPR_REPOSITORY_MAX_REVISIONS package revisions: a tenant
// with 200,000 tags would otherwise put 400,000 objects in the API server and the watcher.
describe("the cap on package revisions per repository", () => {
  it("is 10,000 by default and read from PORCH_PEPR_REPOSITORY_MAX_REVISIONS", () => {
    expect(DEFAULT_CONTENT_LIMITS.maxRevisions).toBe(10_000);
    expect(gitContentLimitsFromEnv({ PORCH_PEPR_REPOSITORY_MAX_REVISIONS: "3" }).maxRevisions).toBe(
      3,
    );
  });

  it("refuses a count over it naming the count, the cap and the setting", () => {
    const limits = { ...DEFAULT_CONTENT_LIMITS, maxRevisions: 3 };
    expect(revisionCountProblem(3, limits)).toBeUndefined();
    expect(revisionCountProblem(4, limits, "refs that may name package revisions")).toBe(
      "the repository has 4 refs that may name package revisions, over the limit of 3 package revisions per repository (PORCH_PEPR_REPOSITORY_MAX_REVISIONS); nothing is mirrored from it until it has fewer, and revisions already mirrored are kept",
    );
  });

  it("counts the refs that may name revisions of the directory from their names alone", () => {
    const refs = [
      "refs/heads/main", // the branch: its packages are counted when listed
      "refs/heads/feature",
      "refs/tags/pkgs/a/v1",
      "refs/tags/pkgs/a/v2",
      "refs/tags/pkgs/b/v1",
      "refs/tags/other/a/v1", // outside the directory
      "refs/tags/v1", // no package path
      "refs/heads/drafts/pkgs/a/ws",
      "refs/heads/proposed/pkgs/b/ws",
      "refs/heads/deletionProposed/pkgs/a/v1", // not a revision of its own
    ];
    expect(revisionRefCount(refs, "pkgs")).toBe(5);
    expect(revisionRefCount(refs, "/")).toBe(6);
  });
});
