import { K8s } from "pepr";
import type { Operation } from "kubernetes-fluent-client";
import { PackageRevision, PackageVariant } from "../../crd-types";
import type { RevisionChange } from "../../lib/package-variant";
import { httpStatus, isNotFound } from "../shared/api-errors";
import {
  cachedOwnedRevisions,
  cachedPackageRevisions,
  PACKAGE_VARIANT_LABEL,
} from "../shared/revision-cache";

/**
 * The revisions a PackageVariant's decisions need: its upstream package's, its downstream
 * package's and the ones it owns elsewhere (after a retarget), from the watch's cache, so a
 * reconcile costs no LIST. The cache may lag by an event: what a reconcile creates has a
 * deterministic name and an AlreadyExists is accepted. `fresh` (deletion, which must not
 * miss a revision) reads the API server instead, with three filtered lists.
 */
export async function relevantRevisions(
  pv: PackageVariant,
  { fresh = false } = {},
): Promise<PackageRevision[]> {
  const ns = pv.metadata?.namespace ?? "";
  const { upstream, downstream } = pv.spec ?? {};
  const owner = pv.metadata?.name ?? "";
  let found: PackageRevision[][];
  if (fresh) {
    const byPackage = async (repo = "", pkg = "") =>
      (
        await K8s(PackageRevision)
          .InNamespace(ns)
          .WithField("spec.repository", repo)
          .WithField("spec.packageName", pkg)
          .Get()
      ).items;
    found = await Promise.all([
      byPackage(upstream?.repo, upstream?.package),
      byPackage(downstream?.repo, downstream?.package),
      K8s(PackageRevision)
        .InNamespace(ns)
        .WithLabel(PACKAGE_VARIANT_LABEL, owner)
        .Get()
        .then(l => l.items),
    ]);
  } else {
    found = await Promise.all([
      cachedPackageRevisions(ns, upstream?.repo, upstream?.package),
      cachedPackageRevisions(ns, downstream?.repo, downstream?.package),
      cachedOwnedRevisions(ns, owner),
    ]);
  }
  const byName = new Map(found.flat().map(pr => [pr.metadata?.name ?? "", pr]));
  return [...byName.values()];
}

/** Creates a draft the state machine decided on; one an interrupted attempt created is kept. */
export async function createDraft(pv: PackageVariant, draft: PackageRevision): Promise<void> {
  const labels = {
    ...(draft.metadata?.labels ?? {}),
    [PACKAGE_VARIANT_LABEL]: pv.metadata?.name ?? "",
  };
  try {
    await K8s(PackageRevision).Create({ ...draft, metadata: { ...draft.metadata, labels } });
  } catch (error) {
    if (httpStatus(error) !== 409) throw error;
  }
}

function patchOf(
  change: Extract<RevisionChange, { action: "update" }>,
  pv: PackageVariant,
): Operation[] {
  const { set, revision } = change;
  const ops: Operation[] = [];
  if (set.lifecycle) ops.push({ op: "replace", path: "/spec/lifecycle", value: set.lifecycle });
  if (set.ownerReferences)
    ops.push({ op: "add", path: "/metadata/ownerReferences", value: set.ownerReferences });
  // An adopted revision gets the label that lists it among this variant's revisions.
  const adopted = change.reasons.includes("adopt");
  const labels = adopted
    ? {
        ...(set.labels ?? revision.metadata?.labels),
        [PACKAGE_VARIANT_LABEL]: pv.metadata?.name ?? "",
      }
    : set.labels;
  if (labels) ops.push({ op: "add", path: "/metadata/labels", value: labels });
  if (set.annotations)
    ops.push({ op: "add", path: "/metadata/annotations", value: set.annotations });
  return ops;
}

/** Adoption, restore, retire: a DELETE or one patch per revision. */
export async function applyChange(pv: PackageVariant, change: RevisionChange): Promise<void> {
  const namespace = change.revision.metadata?.namespace;
  try {
    if (change.action === "delete")
      await K8s(PackageRevision)
        .InNamespace(namespace ?? "")
        .Delete(change.name);
    else {
      const ops = patchOf(change, pv);
      if (ops.length > 0) await K8s(PackageRevision, { namespace, name: change.name }).Patch(ops);
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
