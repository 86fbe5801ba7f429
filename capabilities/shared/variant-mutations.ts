import { PackageRevision, PackageVariant, RepositoryKind } from "../../crd-types";
import { errorMessage } from "../../lib/errors";
import {
  applyMutations,
  type DownstreamRepository,
  FetchedObjects,
  FetchOutcome,
  InClusterRef,
  inClusterKey,
  objectsToFetch,
} from "../../lib/package-variant";
import { packageVariantKindProblems, validatePackageVariant } from "../../lib/validation";
import type { OperatorContext } from "../context";
import { readableKindPolicy, unreadableKind } from "./readable-kinds";

// A PackageVariant's mutations of a downstream's files, as its check (package-variant/mutate.ts)
// and a new draft's source (package-revision/source.ts) apply them: one implementation, so the
// draft's source leaves nothing for the check to change.

/** The admission rules again: the variant may have been written while the webhook was down. */
export async function variantSpecProblems(
  ctx: OperatorContext,
  pv: PackageVariant,
): Promise<string[]> {
  return [
    ...validatePackageVariant(pv.spec, ctx.render.catalog.current()),
    ...packageVariantKindProblems(pv.spec, await readableKindPolicy(ctx)),
  ];
}

/** Phase 2 of config injection: the in-cluster objects the injection points asked for. */
async function fetchInCluster(ctx: OperatorContext, refs: InClusterRef[]): Promise<FetchedObjects> {
  const fetched = new Map<string, FetchOutcome>();
  await Promise.all(
    refs.map(async ref => {
      // The package names the kind: an upstream author may not widen what the operator reads.
      const unreadable = unreadableKind("config injection", ref.apiVersion, ref.kind, true);
      if (unreadable)
        return void fetched.set(inClusterKey(ref), { status: "error", message: unreadable });
      try {
        const object = await ctx.discovery.getObject(
          await ctx.discovery.resolveKind(ref.apiVersion, ref.kind),
          ref.namespace,
          ref.name,
        );
        fetched.set(
          inClusterKey(ref),
          object ? { status: "found", object } : { status: "notFound" },
        );
      } catch (error) {
        fetched.set(inClusterKey(ref), { status: "error", message: errorMessage(error) });
      }
    }),
  );
  return fetched;
}

/** The downstream's Repository as the mutations see it (from the watch's cache). */
async function repositoryOf(
  ctx: OperatorContext,
  downstream: PackageRevision,
): Promise<DownstreamRepository> {
  const repo = await ctx.cluster.get(RepositoryKind, {
    namespace: downstream.metadata?.namespace ?? "",
    name: downstream.spec?.repository ?? "",
  });
  return { deployment: repo?.spec?.deployment === true };
}

/**
 * The variant's mutations applied to `downstream`'s `files`, and the objects injection read.
 * Throws MutationError as applyMutations does.
 */
export async function mutated(
  ctx: OperatorContext,
  pv: PackageVariant,
  downstream: PackageRevision,
  files: Record<string, string>,
) {
  const injected = objectsToFetch(files, pv);
  const [fetched, repository] = await Promise.all([
    fetchInCluster(ctx, injected),
    repositoryOf(ctx, downstream),
  ]);
  return { result: applyMutations(files, pv, fetched, repository), injected };
}
