import { PackageRevision, PackageRevisionKind, PackageVariant } from "../../crd-types";
import { ignoreNotFound } from "../../lib/cluster/errors";
import { onlyIfUnchanged, type JsonPatchOperation } from "../../lib/cluster/port";
import {
  sourceMutationsMark,
  variantLabelValue,
  variantMarks,
  type RevisionChange,
} from "../../lib/package-variant";
import type { OperatorContext } from "../context";
import { PACKAGE_VARIANT_LABEL } from "../shared/revision-cache";
import { newDraftMetadata } from "../shared/revision-marks";

/**
 * The revisions a PackageVariant's decisions need: its upstream package's, its downstream
 * package's and the ones it owns elsewhere (after a retarget), from the watch's cache, so a
 * reconcile costs no LIST. The cache may lag by an event: what a reconcile creates has a
 * deterministic name and an AlreadyExists is accepted. `fresh` (deletion, which must not
 * miss a revision) reads the API server instead, with three filtered lists.
 */
export async function relevantRevisions(
  ctx: OperatorContext,
  pv: PackageVariant,
  { fresh = false } = {},
): Promise<PackageRevision[]> {
  const ns = pv.metadata?.namespace ?? "";
  const { upstream, downstream } = pv.spec ?? {};
  const owner = pv.metadata?.name ?? "";
  let found: PackageRevision[][];
  if (fresh) {
    const byPackage = (repo = "", pkg = "") =>
      ctx.cluster.list(PackageRevisionKind, {
        namespace: ns,
        fields: { "spec.repository": repo, "spec.packageName": pkg },
      });
    found = await Promise.all([
      byPackage(upstream?.repo, upstream?.package),
      byPackage(downstream?.repo, downstream?.package),
      ctx.cluster.list(PackageRevisionKind, {
        namespace: ns,
        labels: { [PACKAGE_VARIANT_LABEL]: variantLabelValue(owner) },
      }),
    ]);
  } else {
    found = await Promise.all([
      ctx.caches.revisions.ofPackage(ns, upstream?.repo, upstream?.package),
      ctx.caches.revisions.ofPackage(ns, downstream?.repo, downstream?.package),
      ctx.caches.revisions.ownedBy(ns, owner),
    ]);
  }
  const byName = new Map(found.flat().map(pr => [pr.metadata?.name ?? "", pr]));
  return [...byName.values()];
}

/**
 * Creates a draft the state machine decided on; one an interrupted attempt created is kept.
 * Says whether this call created it (only then is there something to announce). Its source
 * applies the variant's mutations before its one render (sourceMutationsMark).
 */
export async function createDraft(
  ctx: OperatorContext,
  pv: PackageVariant,
  draft: PackageRevision,
): Promise<boolean> {
  const marks = variantMarks(pv.metadata?.name ?? "");
  const labels = { ...(draft.metadata?.labels ?? {}), ...marks.labels };
  const annotations = {
    ...(draft.metadata?.annotations ?? {}),
    ...marks.annotations,
    ...sourceMutationsMark(pv),
  };
  const metadata = {
    ...draft.metadata,
    labels,
    ...(Object.keys(annotations).length > 0 && { annotations }),
  };
  const marked = { ...draft, metadata: await newDraftMetadata(ctx, { ...draft, metadata }) };
  const made = await ctx.cluster.create(PackageRevisionKind, marked, { tolerateExisting: true });
  return made !== undefined;
}

function patchOf(
  change: Extract<RevisionChange, { action: "update" }>,
  pv: PackageVariant,
): JsonPatchOperation[] {
  const { set, revision } = change;
  const ops: JsonPatchOperation[] = [];
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
export async function applyChange(
  ctx: OperatorContext,
  pv: PackageVariant,
  change: RevisionChange,
): Promise<void> {
  const ref = { namespace: change.revision.metadata?.namespace, name: change.name };
  if (change.action === "delete") return void (await ctx.cluster.delete(PackageRevisionKind, ref));
  const ops = patchOf(change, pv);
  if (ops.length > 0) {
    const json = [...onlyIfUnchanged(change.revision), ...ops];
    await ctx.cluster.patch(PackageRevisionKind, ref, { json }).catch(ignoreNotFound);
  }
}
