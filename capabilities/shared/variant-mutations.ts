import { PackageRevision, PackageVariant, RepositoryKind } from "../../crd-types";
import { errorMessage } from "../../lib/errors";
import {
  applyMutations,
  type DownstreamRepository,
  fetchInjected,
  FetchedObjects,
  type FetchOutcome,
  type InClusterRef,
  inClusterKey,
  objectsToFetch,
  planInjection,
} from "../../lib/package-variant";
import { gitContentLimitsFromEnv, overLimit } from "../../lib/git/content-limits";
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

/**
 * One in-cluster object injection may use, read from the API: only readable kinds, and an object
 * larger than a whole package may be is refused, naming it and the limit (injecting it would
 * make a package over the limit).
 */
async function readInjected(ctx: OperatorContext, ref: InClusterRef): Promise<FetchOutcome> {
  // The package names the kind: an upstream author may not widen what the operator reads.
  const unreadable = unreadableKind("config injection", ref.apiVersion, ref.kind, true);
  if (unreadable) return { status: "error", message: unreadable };
  try {
    const object = await ctx.discovery.getObject(
      await ctx.discovery.resolveKind(ref.apiVersion, ref.kind),
      ref.namespace,
      ref.name,
    );
    if (!object) return { status: "notFound" };
    const limits = gitContentLimitsFromEnv(process.env);
    const bytes = Buffer.byteLength(JSON.stringify(object));
    if (bytes > limits.maxPackageBytes)
      return {
        status: "error",
        message: `injected ${ref.kind} "${ref.name}" is ${bytes} bytes, ${overLimit("maxPackageBytes", limits)}`,
      };
    return { status: "found", object };
  } catch (error) {
    return { status: "error", message: errorMessage(error) };
  }
}

/**
 * Between the phases of config injection: the in-cluster objects the injection points use, each
 * point's candidates read in injector order up to the first that exists (lib fetchInjected).
 */
function fetchInCluster(
  ctx: OperatorContext,
  files: Record<string, string>,
  pv: PackageVariant,
): Promise<FetchedObjects> {
  const namespace = pv.metadata?.namespace ?? "";
  const { points } = planInjection(files, pv.spec?.injectors, namespace);
  return fetchInjected(points, pv.spec?.injectors, namespace, ref => readInjected(ctx, ref));
}

/**
 * The objects an earlier injection read, read again (one at a time, as an injection reads each
 * point's candidates), to tell whether they are as it found them (MutationChecks.same).
 */
export async function readAgain(
  ctx: OperatorContext,
  refs: readonly InClusterRef[],
): Promise<FetchedObjects> {
  const fetched = new Map<string, FetchOutcome>();
  for (const ref of refs) fetched.set(inClusterKey(ref), await readInjected(ctx, ref));
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
 * The variant's mutations applied to `downstream`'s `files`, the objects injection may use
 * (`injected`, to watch) and what it read of them (`fetched`).
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
    fetchInCluster(ctx, files, pv),
    repositoryOf(ctx, downstream),
  ]);
  return { result: applyMutations(files, pv, fetched, repository), injected, fetched };
}
