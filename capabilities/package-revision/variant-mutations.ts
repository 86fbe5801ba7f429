import { PackageRevision, PackageVariantKind } from "../../crd-types";
import { errorMessage } from "../../lib/errors";
import { mutatesAtSource, sourceMutationsOwner } from "../../lib/package-variant";
import type { OperatorContext } from "../context";
import { mutated, variantSpecProblems } from "../shared/variant-mutations";

/**
 * A PackageVariant's new draft: the source's files with the variant's mutations (package
 * context, pipeline, injection), so the draft is rendered and committed once and the variant's
 * check finds nothing left to change (docs/package-variants.md, “One render per draft”). Only
 * for a draft the operator created for a variant that still controls it and targets its
 * package (lib/package-variant/source-mutations.ts). A variant whose spec breaks the rules, or
 * whose mutations fail, leaves the files as the source made them: its own reconcile states why
 * and applies them later, as for any downstream.
 */
export async function withVariantMutations(
  ctx: OperatorContext,
  pr: PackageRevision,
  files: Record<string, string>,
): Promise<Record<string, string>> {
  const owner = sourceMutationsOwner(pr);
  if (!owner) return files;
  const ref = { namespace: pr.metadata?.namespace, name: owner.name };
  // The variants' watch cache where this process watches them (it made the draft a moment ago);
  // the API otherwise. A cached spec a moment old is repaired by the variant's own check.
  const pv = ctx.caches.variants.named(ref) ?? (await ctx.cluster.get(PackageVariantKind, ref));
  if (!pv || !mutatesAtSource(pr, pv)) return files;
  if ((await variantSpecProblems(ctx, pv)).length > 0) return files;
  try {
    return (await mutated(ctx, pv, pr, files)).result.files;
  } catch (error) {
    ctx.log.debug(`${pr.metadata?.name}: mutations left to its variant: ${errorMessage(error)}`);
    return files;
  }
}
