import type { Lifecycle } from "../git/types";

/**
 * The annotation recording the UID of the Repository a PackageRevision was created or mirrored
 * under: unlike the ownerReference (dropped by an orphaning delete and then re-added for
 * whatever Repository has the name), it never moves to a Repository re-created under the name.
 */
export const REPOSITORY_UID_ANNOTATION = "porch.kpt.dev/repository-uid";

export interface DeletionFacts {
  /** The Repository UID recorded on the revision (annotation, else its Repository owner). */
  recordedRepositoryUid?: string;
  /** The revision's status says git backs it: its source pushed it, or a sync mirrored it. */
  backedByGit: boolean;
  /** The revision's namespace is being deleted: everything in it goes, git stays. */
  namespaceTerminating: boolean;
  /** The live Repository of spec.repository; undefined when there is none. */
  repository?: { name: string; uid: string; deleting: boolean };
}

/**
 * Why deleting this PackageRevision must leave git alone, or undefined when its content is its
 * own to delete. Deleting an object only deletes git content that the object's own Repository
 * registration created or mirrored: not when the namespace or the Repository is going away, not
 * for a Repository re-created under the same name (perhaps pointing at another URL), and not
 * for an object that never backed content (a second object naming a taken package/workspace).
 */
export function keepGitReason(facts: DeletionFacts): string | undefined {
  const repo = facts.repository;
  if (facts.namespaceTerminating) return "the namespace is being deleted";
  if (!repo) return "its Repository is gone";
  if (repo.deleting) return `Repository "${repo.name}" is being deleted`;
  if (!facts.recordedRepositoryUid) return "no Repository was recorded as its owner";
  if (facts.recordedRepositoryUid !== repo.uid)
    return `Repository "${repo.name}" was re-created since this revision was made (UID ${repo.uid}, recorded ${facts.recordedRepositoryUid})`;
  if (!facts.backedByGit) return "this revision never created or mirrored content in git";
  return undefined;
}

export type DeletionStep =
  | { action: "keepGit"; reason: string }
  | { action: "block"; message: string }
  | { action: "deleteGit" }
  | { action: "release" };

export const DELETION_BLOCKED_MESSAGE =
  "a Published revision is deleted only after it is proposed for deletion: set spec.lifecycle to DeletionProposed";

/**
 * What deleting a PackageRevision does (docs/package-revisions.md, “Deletion”): content owned
 * elsewhere is kept (keepGitReason); a Published revision waits for spec.lifecycle
 * DeletionProposed; content present in git is deleted; a revision git no longer has is just
 * released.
 */
export function planDeletion(
  facts: DeletionFacts,
  gitLifecycle: Lifecycle | undefined,
  specLifecycle: string | undefined,
): DeletionStep {
  const reason = keepGitReason(facts);
  if (reason) return { action: "keepGit", reason };
  if (gitLifecycle === "Published" && specLifecycle !== "DeletionProposed")
    return { action: "block", message: DELETION_BLOCKED_MESSAGE };
  return gitLifecycle === undefined ? { action: "release" } : { action: "deleteGit" };
}

interface RevisionMeta {
  metadata?: {
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; apiVersion: string; uid: string }[];
  };
}

/** The recorded Repository UID: the annotation, else the Repository ownerReference's. */
export function recordedRepositoryUid(pr: RevisionMeta): string | undefined {
  const annotated = pr.metadata?.annotations?.[REPOSITORY_UID_ANNOTATION];
  if (annotated) return annotated;
  return pr.metadata?.ownerReferences?.find(
    o => o.kind === "Repository" && o.apiVersion.startsWith("config.porch.kpt.dev/"),
  )?.uid;
}
