import { PackageRevision, Repository, RepositoryKind } from "../../crd-types";
import { REPOSITORY_UID_ANNOTATION } from "../../lib/packages/deletion";
import { LATEST_REVISION_LABEL } from "../../lib/packages/latest-revision";
import type { OperatorContext } from "../context";

/** The PackageRevision controller's finalizer: deletion waits for its git decision. */
export const PACKAGE_REVISION_FINALIZER = "porch.kpt.dev/packagerevisions";

/** The owner reference that lets a deleted Repository cascade to its revisions. */
export const repositoryOwner = (repo: Repository) => ({
  apiVersion: "config.porch.kpt.dev/v1alpha1",
  kind: "Repository",
  name: repo.metadata?.name ?? "",
  uid: repo.metadata?.uid ?? "",
});

type Metadata = NonNullable<PackageRevision["metadata"]>;

/**
 * A new draft's metadata as the PackageRevision controller's first reconcile and its source
 * would leave it (finalizer; Repository UID annotation and, unless that Repository is being
 * deleted, owner reference; latest-revision "false": a draft is never the latest), so its
 * creation is not followed by two patches. The controller still adds what a revision lacks
 * (one made by a user or an older version, an adopted one). The Repository comes from the
 * watch's cache.
 */
export async function newDraftMetadata(
  ctx: OperatorContext,
  draft: PackageRevision,
): Promise<Metadata> {
  const metadata = draft.metadata ?? {};
  const repo = await ctx.cluster.get(RepositoryKind, {
    namespace: metadata.namespace,
    name: draft.spec?.repository ?? "",
  });
  const uid = repo?.metadata?.uid;
  const owned = repo && uid && !repo.metadata?.deletionTimestamp;
  return {
    ...metadata,
    finalizers: [...(metadata.finalizers ?? []), PACKAGE_REVISION_FINALIZER],
    labels: { ...metadata.labels, [LATEST_REVISION_LABEL]: "false" },
    ...(uid && { annotations: { ...metadata.annotations, [REPOSITORY_UID_ANNOTATION]: uid } }),
    ...(owned && { ownerReferences: [...(metadata.ownerReferences ?? []), repositoryOwner(repo)] }),
  };
}
