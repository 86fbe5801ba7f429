import { PackageRevision, PackageRevisionKind, Repository, RepositoryKind } from "../../crd-types";
import { ignoreNotFound } from "../../lib/cluster/errors";
import { NamespaceKind } from "../../lib/cluster/kinds";
import {
  onlyIfUnchanged,
  refOf,
  type Cluster,
  type JsonPatchOperation,
} from "../../lib/cluster/port";
import { errorMessage } from "../../lib/errors";
import { isGitStoreError } from "../../lib/git";
import {
  DeletionFacts,
  keepGitReason,
  planDeletion,
  recordedRepositoryUid,
  REPOSITORY_UID_ANNOTATION,
} from "../../lib/packages/deletion";
import type { OperatorContext } from "../context";
import { gitKey } from "../shared/git-key";
import type { Lifecycle, RevisionOutcome } from "../../lib/package-revision";
import { refreshLatestLabels } from "../shared/latest-revision-labels";
import { PACKAGE_REVISION_FINALIZER, repositoryOwner } from "../shared/revision-marks";

export const FINALIZER = PACKAGE_REVISION_FINALIZER;

async function liveRepository(
  cluster: Cluster,
  pr: PackageRevision,
): Promise<Repository | undefined> {
  return cluster.get(RepositoryKind, {
    namespace: pr.metadata?.namespace,
    name: pr.spec?.repository ?? "",
  });
}

const escapeKey = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * Finalizer, Repository UID annotation and ownerReference, in one patch, on first sight
 * (docs/package-revisions.md, “Finalizer and owner reference”), unless the revision was
 * created with them (shared/revision-marks.ts). The ownerReference lets a deleted
 * Repository cascade to its package revisions; the annotation records which registration of that
 * name the revision belongs to, and an ownerReference is only ever added for that one.
 */
async function ensureFinalizer(ctx: OperatorContext, pr: PackageRevision): Promise<void> {
  const patch: JsonPatchOperation[] = [];
  const finalizers = pr.metadata?.finalizers ?? [];
  if (!finalizers.includes(FINALIZER))
    patch.push({ op: "add", path: "/metadata/finalizers", value: [...finalizers, FINALIZER] });
  const owners = pr.metadata?.ownerReferences ?? [];
  const annotations = pr.metadata?.annotations;
  const hasOwner = owners.some(o => o.kind === "Repository");
  if (!hasOwner || !annotations?.[REPOSITORY_UID_ANNOTATION]) {
    const repo = await liveRepository(ctx.cluster, pr);
    const uid = repo?.metadata?.uid;
    const recorded = recordedRepositoryUid(pr) ?? uid;
    if (recorded && !annotations?.[REPOSITORY_UID_ANNOTATION]) {
      patch.push(
        annotations
          ? {
              op: "add",
              path: `/metadata/annotations/${escapeKey(REPOSITORY_UID_ANNOTATION)}`,
              value: recorded,
            }
          : {
              op: "add",
              path: "/metadata/annotations",
              value: { [REPOSITORY_UID_ANNOTATION]: recorded },
            },
      );
    }
    // Not to one being deleted: orphaning just removed that owner, re-adding it would cascade.
    if (repo && uid && !hasOwner && recorded === uid && !repo.metadata?.deletionTimestamp) {
      const owner = repositoryOwner(repo);
      patch.push({ op: "add", path: "/metadata/ownerReferences", value: [...owners, owner] });
    }
  }
  if (patch.length > 0)
    await ctx.cluster.patch(PackageRevisionKind, refOf(pr), {
      json: [...onlyIfUnchanged(pr), ...patch],
    });
}

async function removeFinalizer(ctx: OperatorContext, pr: PackageRevision): Promise<void> {
  const finalizers = (pr.metadata?.finalizers ?? []).filter(f => f !== FINALIZER);
  await ctx.cluster
    .patch(PackageRevisionKind, refOf(pr), {
      json: [
        ...onlyIfUnchanged(pr),
        { op: "replace", path: "/metadata/finalizers", value: finalizers },
      ],
    })
    .catch(ignoreNotFound);
}

async function namespaceTerminating(ctx: OperatorContext, namespace: string): Promise<boolean> {
  const ns = await ctx.cluster.get(NamespaceKind, { name: namespace });
  return !ns || Boolean(ns.metadata?.deletionTimestamp) || ns.status?.phase === "Terminating";
}

/** Git owns status.creationSource (the source pushed it) or selfLock (a sync mirrored it). */
const backedByGit = (pr: PackageRevision) =>
  Boolean(pr.status?.creationSource || pr.status?.selfLock?.git?.commit);

async function deletionFacts(
  ctx: OperatorContext,
  pr: PackageRevision,
): Promise<{ facts: DeletionFacts; repo?: Repository }> {
  const [repo, terminating] = await Promise.all([
    // From the API server, not the watch's cache: a Repository deleted a moment ago (the
    // garbage collector deletes its revisions next) may still be in the cache, and taken for
    // live it would have this revision's content deleted from git.
    liveRepository(ctx.api, pr),
    namespaceTerminating(ctx, pr.metadata?.namespace ?? ""),
  ]);
  const facts = {
    recordedRepositoryUid: recordedRepositoryUid(pr),
    backedByGit: backedByGit(pr),
    namespaceTerminating: terminating,
    repository: repo && {
      name: repo.metadata?.name ?? "",
      uid: repo.metadata?.uid ?? "",
      deleting: Boolean(repo.metadata?.deletionTimestamp),
    },
  };
  return { facts, repo };
}

/** Whether the object lives on, or is being deleted (with what to state while it waits). */
export type FinalizerOutcome =
  | { kind: "live" }
  | { kind: "deleting"; outcome: Extract<RevisionOutcome, { kind: "unchanged" | "failed" }> };

const deleting = { kind: "deleting", outcome: { kind: "unchanged" } } as const;

/**
 * Deletion (docs/package-revisions.md, “Deletion”; lib/packages/deletion): git content is deleted
 * only for a revision whose own Repository registration created or mirrored it; a namespace or
 * Repository being deleted, a Repository re-created under the name, or a revision that never backed
 * content lets the object go and leaves git alone. A Published revision waits until it is moved to
 * DeletionProposed. When the object is being deleted, the other steps have nothing to do.
 */
export async function reconcileFinalizer(
  ctx: OperatorContext,
  pr: PackageRevision,
): Promise<FinalizerOutcome> {
  if (!pr.metadata?.deletionTimestamp) {
    await ensureFinalizer(ctx, pr);
    return { kind: "live" };
  }
  if (!(pr.metadata.finalizers ?? []).includes(FINALIZER)) return deleting;
  const { facts, repo } = await deletionFacts(ctx, pr);
  // Git is read (and the store opened) only for content this revision may delete.
  const store = repo && !keepGitReason(facts) ? await ctx.stores.of(repo) : undefined;
  let lifecycle: Lifecycle | undefined;
  if (store) {
    try {
      lifecycle = (await store.getPackageContent(gitKey(pr))).info.lifecycle;
    } catch (error) {
      if (!isGitStoreError(error, "NotFound")) throw error;
    }
  }
  const step = planDeletion(facts, lifecycle, pr.spec?.lifecycle);
  switch (step.action) {
    case "block":
      return {
        kind: "deleting",
        outcome: { kind: "failed", reason: "DeletionBlocked", message: step.message },
      };
    case "keepGit":
      ctx.log.info(
        `deleting ${pr.metadata.namespace}/${pr.metadata.name}; git left alone: ${step.reason}`,
      );
      await removeFinalizer(ctx, pr);
      // Only when its package lives on: otherwise everything around it is being deleted too.
      if (facts.repository && !facts.repository.deleting && !facts.namespaceTerminating) {
        await ctx.cluster.event(
          pr,
          "Normal",
          "GitContentKept",
          `deleted without touching git: ${step.reason}`,
        );
        await refreshLatestLabels(ctx, pr);
      }
      return deleting;
    case "deleteGit":
      try {
        await store?.deletePackage(gitKey(pr));
      } catch (error) {
        if (!isGitStoreError(error, "NotFound")) {
          ctx.log.warn(`deleting ${pr.metadata.name} from git failed: ${errorMessage(error)}`);
          throw new Error(`failed to delete package from git: ${errorMessage(error)}`);
        }
      }
      break;
    case "release":
      break;
  }
  await removeFinalizer(ctx, pr);
  await refreshLatestLabels(ctx, pr);
  return deleting;
}
