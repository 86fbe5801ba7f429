import { applyRevisionPatch, mergePatchOf, planDeletion } from "../../../lib/package-variant";
import { revision, variant } from "./fixtures";

type Lifecycle = "Draft" | "Proposed" | "Published" | "DeletionProposed";
const owned = (lifecycle: Lifecycle, extra = {}) =>
  revision({
    ws: lifecycle.toLowerCase(),
    lifecycle,
    revision: 1,
    controller: { kind: "Repository", name: "edge01", uid: "repo-uid" },
    ...extra,
  });
const repositoryOwner = [
  { apiVersion: "x/v1", kind: "Repository", name: "edge01", uid: "repo-uid", controller: true },
];

describe("planDeletion", () => {
  it.each([
    ["delete", "Draft", { action: "delete" }],
    ["delete", "Proposed", { action: "delete" }],
    // Proposed for deletion and orphaned, so garbage collection does not delete it unapproved.
    [
      "delete",
      "Published",
      {
        action: "update",
        set: { lifecycle: "DeletionProposed", ownerReferences: repositoryOwner },
      },
    ],
    ["delete", "DeletionProposed", { action: "update", set: { ownerReferences: repositoryOwner } }],
    ["orphan", "Draft", { action: "update", set: { ownerReferences: repositoryOwner } }],
    ["orphan", "Published", { action: "update", set: { ownerReferences: repositoryOwner } }],
    ["orphan", "DeletionProposed", { action: "update", set: { ownerReferences: repositoryOwner } }],
  ] as const)("deletionPolicy %s, %s", (policy, lifecycle, expected) => {
    const pr = owned(lifecycle);
    expect(planDeletion(variant({ deletionPolicy: policy }), [pr])).toEqual([
      { ...expected, name: pr.metadata?.name, revision: pr, reasons: ["deleted"] },
    ]);
  });

  it("defaults to the delete policy", () => {
    expect(planDeletion(variant(), [owned("Draft")]).map(c => c.action)).toEqual(["delete"]);
  });

  it("touches only revisions this PackageVariant owns, and does not delete one twice", () => {
    const revisions = [
      owned("Draft", { owner: "other-uid" }),
      owned("Draft", { owner: false }),
      owned("Proposed", { deleting: true }),
    ];
    expect(planDeletion(variant(), revisions)).toEqual([]);
  });
});

describe("revision patches", () => {
  const pr = owned("Published", { labels: { a: "1" } });

  it("builds a JSON merge patch with only the fields set", () => {
    expect(mergePatchOf({ lifecycle: "DeletionProposed" })).toEqual({
      spec: { lifecycle: "DeletionProposed" },
    });
    expect(mergePatchOf({ ownerReferences: [], labels: { a: "2" } })).toEqual({
      metadata: { ownerReferences: [], labels: { a: "2" } },
    });
    expect(mergePatchOf({})).toEqual({});
  });

  it("applies a patch to a copy of the object", () => {
    const updated = applyRevisionPatch(pr, { lifecycle: "DeletionProposed", ownerReferences: [] });
    expect(updated.spec?.lifecycle).toBe("DeletionProposed");
    expect(updated.metadata?.ownerReferences).toEqual([]);
    expect(updated.metadata?.labels).toEqual({ a: "1" });
    expect(pr.spec?.lifecycle).toBe("Published");
  });
});
