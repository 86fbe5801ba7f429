import { latestRevisionLabels, RevisionSummary } from "../../../lib/packages/latest-revision";

const r = (
  name: string,
  packageName: string,
  lifecycle: string,
  revision: number,
  deleting = false,
): RevisionSummary => ({
  name,
  repository: "repo",
  packageName,
  lifecycle,
  revision,
  deleting,
});

describe("latestRevisionLabels", () => {
  it("marks the highest non-deleting Published or DeletionProposed revision of each package", () => {
    const labels = latestRevisionLabels([
      r("a.v1", "a", "Published", 1),
      r("a.v2", "a", "DeletionProposed", 2),
      r("a.v3", "a", "Published", 3, true),
      r("a.draft", "a", "Draft", 0),
      r("a.main", "a", "Published", -1),
      r("b.v1", "b", "Published", 1),
      r("c.draft", "c", "Draft", 0),
    ]);
    expect(Object.fromEntries(labels)).toEqual({
      "a.v1": "false",
      "a.v2": "true",
      "a.v3": "false",
      "a.draft": "false",
      "a.main": "false",
      "b.v1": "true",
      "c.draft": "false",
    });
  });
});
