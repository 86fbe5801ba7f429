import { PackageVariant, PackageVariantKind } from "../../crd-types";
import { ignoreNotFound } from "../../lib/cluster/errors";
import { onlyIfUnchanged, refOf } from "../../lib/cluster/port";
import { errorMessage } from "../../lib/errors";
import { PACKAGE_VARIANT_FINALIZER, planDeletion } from "../../lib/package-variant";
import type { OperatorContext } from "../context";
import { applyChange, relevantRevisions } from "./revisions";
import { writeVariantStatus } from "./status";

async function setFinalizers(
  ctx: OperatorContext,
  pv: PackageVariant,
  finalizers: string[],
): Promise<void> {
  await ctx.cluster
    .patch(PackageVariantKind, refOf(pv), {
      json: [
        ...onlyIfUnchanged(pv),
        { op: "add", path: "/metadata/finalizers", value: finalizers },
      ],
    })
    .catch(ignoreNotFound);
}

/**
 * The PackageVariant's own finalizer (Pepr's Finalize drops a finalizer even when cleanup
 * fails: kpt#3878 is what that causes). On deletion every owned revision is handled by the
 * deletion policy (delete, or propose deletion of published ones, or orphan); the finalizer
 * goes only when all succeeded. Returns true when the object is being deleted.
 */
export async function reconcileFinalizer(
  ctx: OperatorContext,
  pv: PackageVariant,
): Promise<boolean> {
  const finalizers = pv.metadata?.finalizers ?? [];
  if (!pv.metadata?.deletionTimestamp) {
    if (!finalizers.includes(PACKAGE_VARIANT_FINALIZER))
      await setFinalizers(ctx, pv, [...finalizers, PACKAGE_VARIANT_FINALIZER]);
    return false;
  }
  if (!finalizers.includes(PACKAGE_VARIANT_FINALIZER)) return true;
  const changes = planDeletion(pv, await relevantRevisions(ctx, pv, { fresh: true }));
  const failures: string[] = [];
  for (const change of changes) {
    try {
      await applyChange(ctx, pv, change);
    } catch (error) {
      failures.push(`${change.name}: ${errorMessage(error)}`);
    }
  }
  if (failures.length > 0) {
    const message = `cannot finish deletion (deletionPolicy ${pv.spec?.deletionPolicy ?? "delete"}): ${failures.join("; ")}`;
    await writeVariantStatus(ctx, pv, { errors: [message], pending: [], targets: [] });
    throw new Error(message);
  }
  if (changes.length > 0) {
    const summary = changes.map(
      c =>
        `${c.name} (${c.action === "delete" ? "deleted" : c.set.lifecycle === "DeletionProposed" ? "proposed for deletion" : "orphaned"})`,
    );
    await ctx.cluster.event(pv, "Normal", "DownstreamsReleased", summary.join(", "));
  }
  await setFinalizers(
    ctx,
    pv,
    finalizers.filter(f => f !== PACKAGE_VARIANT_FINALIZER),
  );
  return true;
}
