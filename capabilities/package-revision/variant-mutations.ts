import { PackageRevision, PackageRevisionResources, PackageVariantKind } from "../../crd-types";
import { keyOf } from "../../lib/controller/manager";
import { errorMessage } from "../../lib/errors";
import {
  MutationChecks,
  mutatesAtSource,
  sourceMutationsOwner,
  type InjectionReads,
} from "../../lib/package-variant";
import type { OperatorContext } from "../context";
import { mutated, variantSpecProblems } from "../shared/variant-mutations";

/** The source's files, and the variant whose mutations they carry (none: left to the variant). */
export interface SourceMutations {
  files: Record<string, string>;
  /**
   * The variant's UID and generation when its mutations were applied, and the injected objects
   * they read at their versions (unset when one could not be read: the check reads the files).
   */
  appliedBy?: { uid?: string; generation?: number; reads: InjectionReads };
}

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
): Promise<SourceMutations> {
  const owner = sourceMutationsOwner(pr);
  if (!owner) return { files };
  const ref = { namespace: pr.metadata?.namespace, name: owner.name };
  // The variants' watch cache where this process watches them (it made the draft a moment ago);
  // the API otherwise. A cached spec a moment old is repaired by the variant's own check.
  const pv = ctx.caches.variants.named(ref) ?? (await ctx.cluster.get(PackageVariantKind, ref));
  if (!pv || !mutatesAtSource(pr, pv)) return { files };
  if ((await variantSpecProblems(ctx, pv)).length > 0) return { files };
  try {
    const { result, injected, fetched } = await mutated(ctx, pv, pr, files);
    // The variant's check watches the injected objects (it says which, from these reads).
    const { uid, generation } = pv.metadata ?? {};
    const reads = MutationChecks.reads(injected, fetched);
    return { files: result.files, ...(reads && { appliedBy: { uid, generation, reads } }) };
  } catch (error) {
    ctx.log.debug(`${pr.metadata?.name}: mutations left to its variant: ${errorMessage(error)}`);
    return { files };
  }
}

/**
 * Once the mutated files are written (`written`, with its render status): the variant's check
 * of this version of the files, at this generation of the variant, with the injected objects
 * at the versions the source read, has nothing to change, so it need not read the files
 * (lib/package-variant/mutation-checks.ts). An edit of the files since, a new generation of the
 * variant or an injected object changed since has another stamp: the check reads and mutates
 * again.
 * Kept in this process, as the check's own findings are: after a restart the check reads once.
 */
export function noteSourceMutations(
  ctx: OperatorContext,
  pr: PackageRevision,
  mutations: SourceMutations,
  written: PackageRevisionResources,
): void {
  if (!mutations.appliedBy) return;
  const stamp = MutationChecks.stamp(
    { metadata: mutations.appliedBy },
    written.metadata?.resourceVersion,
  );
  ctx.caches.mutationChecks.record(keyOf(pr), stamp, true, mutations.appliedBy.reads);
}
