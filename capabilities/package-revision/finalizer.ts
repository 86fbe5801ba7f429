import { K8s, Log } from "pepr";
import type { Operation } from "kubernetes-fluent-client";
import { PackageRevision } from "../../crd-types";
import { isGitStoreError } from "../../lib/git";
import { errorMessage, isNotFound } from "../shared/api-errors";
import { storeForName } from "../shared/content-stores";
import { gitKey } from "../shared/git-key";
import { applyCoreStatus } from "./status";
import { refreshLatestLabels } from "../shared/latest-revision-labels";

export const FINALIZER = "porch.kpt.dev/packagerevisions";

/**
 * Finalizer and ownerReference to the Repository, in one patch, on first sight (seed 002). The
 * ownerReference lets a deleted Repository cascade to its package revisions.
 */
async function ensureFinalizer(pr: PackageRevision): Promise<void> {
  const patch: Operation[] = [];
  const finalizers = pr.metadata?.finalizers ?? [];
  if (!finalizers.includes(FINALIZER))
    patch.push({ op: "add", path: "/metadata/finalizers", value: [...finalizers, FINALIZER] });
  const owners = pr.metadata?.ownerReferences ?? [];
  if (!owners.some(o => o.kind === "Repository")) {
    const repo = await storeForName(pr.metadata?.namespace ?? "", pr.spec?.repository ?? "").catch(
      () => undefined,
    );
    if (repo) {
      const owner = {
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "Repository",
        name: repo.repo.metadata?.name ?? "",
        uid: repo.repo.metadata?.uid ?? "",
      };
      patch.push({ op: "add", path: "/metadata/ownerReferences", value: [...owners, owner] });
    }
  }
  if (patch.length > 0)
    await K8s(PackageRevision, {
      namespace: pr.metadata?.namespace,
      name: pr.metadata?.name,
    }).Patch(patch);
}

async function removeFinalizer(pr: PackageRevision): Promise<void> {
  const finalizers = (pr.metadata?.finalizers ?? []).filter(f => f !== FINALIZER);
  await K8s(PackageRevision, { namespace: pr.metadata?.namespace, name: pr.metadata?.name })
    .Patch([{ op: "replace", path: "/metadata/finalizers", value: finalizers }])
    .catch(e => (isNotFound(e) ? undefined : Promise.reject(e)));
}

/**
 * Deletion gating (seed 002): a Published revision whose Repository exists stays until it is
 * moved to DeletionProposed; DeletionProposed or unpublished ones lose their git refs, then the
 * finalizer; with the Repository gone (garbage collection), deletion is allowed. Returns true
 * when the object is being deleted (the other steps then have nothing to do).
 */
export async function reconcileFinalizer(pr: PackageRevision): Promise<boolean> {
  if (!pr.metadata?.deletionTimestamp) {
    await ensureFinalizer(pr);
    return false;
  }
  if (!(pr.metadata.finalizers ?? []).includes(FINALIZER)) return true;
  const repo = await storeForName(pr.metadata.namespace ?? "", pr.spec?.repository ?? "");
  if (!repo) {
    await removeFinalizer(pr);
    return true;
  }
  let lifecycle: string | undefined;
  try {
    lifecycle = (await repo.store.getPackageContent(gitKey(pr))).info.lifecycle;
  } catch (error) {
    if (!isGitStoreError(error, "NotFound")) throw error;
  }
  // Proposing the deletion (spec.lifecycle) releases the gate, even before git follows.
  if (lifecycle === "Published" && pr.spec?.lifecycle !== "DeletionProposed") {
    await applyCoreStatus(pr, {}, [
      {
        type: "Ready",
        status: "False",
        reason: "DeletionBlocked",
        message:
          "a Published revision is deleted only after it is proposed for deletion: set spec.lifecycle to DeletionProposed",
      },
    ]);
    return true;
  }
  if (lifecycle !== undefined) {
    try {
      await repo.store.deletePackage(gitKey(pr));
    } catch (error) {
      if (!isGitStoreError(error, "NotFound")) {
        Log.warn(`deleting ${pr.metadata.name} from git failed: ${errorMessage(error)}`);
        throw new Error(`failed to delete package from git: ${errorMessage(error)}`);
      }
    }
  }
  await removeFinalizer(pr);
  await refreshLatestLabels(pr);
  return true;
}
