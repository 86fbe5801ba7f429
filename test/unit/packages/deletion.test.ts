import {
  DELETION_BLOCKED_MESSAGE,
  DeletionFacts,
  planDeletion,
  recordedRepositoryUid,
  REPOSITORY_UID_ANNOTATION,
} from "../../../lib/packages/deletion";

const owned: DeletionFacts = {
  recordedRepositoryUid: "uid-1",
  backedByGit: true,
  namespaceTerminating: false,
  repository: { name: "blueprints", uid: "uid-1", deleting: false },
};

describe("planDeletion", () => {
  it("deletes the content of a revision its own Repository backs", () => {
    expect(planDeletion(owned, "Draft", "Draft")).toEqual({ action: "deleteGit" });
    expect(planDeletion(owned, "Published", "DeletionProposed")).toEqual({ action: "deleteGit" });
  });

  it("blocks a Published revision not proposed for deletion", () => {
    expect(planDeletion(owned, "Published", "Published")).toEqual({
      action: "block",
      message: DELETION_BLOCKED_MESSAGE,
    });
  });

  it("releases a revision git no longer has", () => {
    expect(planDeletion(owned, undefined, "Draft")).toEqual({ action: "release" });
  });

  it.each<[string, Partial<DeletionFacts>, string]>([
    ["namespace deleted", { namespaceTerminating: true }, "the namespace is being deleted"],
    ["Repository gone", { repository: undefined }, "its Repository is gone"],
    [
      "Repository being deleted (its revisions go with it)",
      { repository: { name: "blueprints", uid: "uid-1", deleting: true } },
      'Repository "blueprints" is being deleted',
    ],
    [
      "Repository re-created under the same name",
      { repository: { name: "blueprints", uid: "uid-2", deleting: false } },
      'Repository "blueprints" was re-created since this revision was made (UID uid-2, recorded uid-1)',
    ],
    [
      "no Repository recorded",
      { recordedRepositoryUid: undefined },
      "no Repository was recorded as its owner",
    ],
    [
      "a revision that never backed content (a taken package/workspace)",
      { backedByGit: false },
      "this revision never created or mirrored content in git",
    ],
  ])("keeps git when the %s, whatever the lifecycle", (_, patch, reason) => {
    for (const lifecycle of ["Draft", "Published"] as const) {
      expect(planDeletion({ ...owned, ...patch }, lifecycle, lifecycle)).toEqual({
        action: "keepGit",
        reason,
      });
    }
  });
});

describe("recordedRepositoryUid", () => {
  const owner = { kind: "Repository", apiVersion: "config.porch.kpt.dev/v1alpha1", uid: "o" };

  it("prefers the annotation to the ownerReference", () => {
    expect(
      recordedRepositoryUid({
        metadata: { annotations: { [REPOSITORY_UID_ANNOTATION]: "a" }, ownerReferences: [owner] },
      }),
    ).toBe("a");
    expect(recordedRepositoryUid({ metadata: { ownerReferences: [owner] } })).toBe("o");
  });

  it("ignores an owner of another group", () => {
    expect(
      recordedRepositoryUid({
        metadata: { ownerReferences: [{ ...owner, apiVersion: "example.com/v1" }] },
      }),
    ).toBeUndefined();
  });
});
