import { K8s } from "pepr";
import type { Operation } from "kubernetes-fluent-client";
import { PackageRevision, PackageVariant } from "../../crd-types";
import { variantLabelValue, variantMarks, type RevisionChange } from "../../lib/package-variant";
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
        .WithLabel(PACKAGE_VARIANT_LABEL, variantLabelValue(owner))
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
  const marks = variantMarks(pv.metadata?.name ?? "");
  const labels = { ...(draft.metadata?.labels ?? {}), ...marks.labels };
  const annotations = { ...(draft.metadata?.annotations ?? {}), ...marks.annotations };
  const metadata = {
    ...draft.metadata,
    labels,
    ...(Object.keys(annotations).length > 0 && { annotations }),
  };
  try {
    await K8s(PackageRevision).Create({ ...draft, metadata });
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
  const marks = adopted ? variantMarks(pv.metadata?.name ?? "") : undefined;
  const labels = marks
    ? { ...(set.labels ?? revision.metadata?.labels), ...marks.labels }
    : set.labels;
  const annotations =
    marks && Object.keys(marks.annotations).length > 0
      ? { ...(set.annotations ?? revision.metadata?.annotations), ...marks.annotations }
      : set.annotations;
  if (labels) ops.push({ op: "add", path: "/metadata/labels", value: labels });
  if (annotations) ops.push({ op: "add", path: "/metadata/annotations", value: annotations });
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
