import type { OperatorContext } from "../context";
import { PackageVariantSet } from "../../crd-types";
import { toSelectorString } from "../../lib/kubernetes/label-selector";
import {
  packageNamesOf,
  repositoryListCount,
  SetTarget,
  TargetContext,
  unrollRepositoryList,
  unrollSelectedObjects,
} from "../../lib/package-variant-set";
import { NoMatchError } from "../shared/discovery";

const REPOSITORY_API_VERSION = "config.porch.kpt.dev/v1alpha1";

export interface UnrolledTargets {
  contexts: TargetContext[];
  /**
   * Targets whose kind the API does not serve: Stalled, reason NoMatchingTargets
   * (docs/package-variant-sets.md, “Targets”).
   */
  noMatch: string[];
  /** Selector targets that selected no object: said per target, not an error. */
  empty: string[];
  /**
   * Set when the targets yield more than the limit: the count when counting stopped (a lower
   * bound), and `contexts` is then incomplete.
   */
  overLimit?: number;
}

/**
 * A repository selector is an object selector over Repository objects
 * (docs/package-variant-sets.md, “Targets”).
 */
function objectSelectorOf(target: SetTarget) {
  if (target.repositorySelector) {
    return {
      ...target.repositorySelector,
      apiVersion: REPOSITORY_API_VERSION,
      kind: "Repository",
      name: undefined,
    };
  }
  return target.objectSelector;
}

/**
 * One selector target's contexts, if its objects × package names fit in `room`; otherwise only
 * how many it yields at least (`overLimit`), having read no more than room allows and built
 * nothing.
 */
async function unrollSelector(
  ctx: OperatorContext,
  target: SetTarget,
  index: number,
  namespace: string,
  upstreamPackage: string,
  room: number,
): Promise<{ contexts: TargetContext[]; empty?: string; overLimit?: number }> {
  const selector = objectSelectorOf(target);
  if (!selector?.apiVersion || !selector.kind) return { contexts: [] };
  const names = packageNamesOf(selector.packageNames, upstreamPackage).length;
  const type = await ctx.discovery.resolveKind(selector.apiVersion, selector.kind);
  const labelSelector = toSelectorString(selector);
  const objects = await ctx.discovery.listObjects(type, namespace, {
    labelSelector,
    fieldSelector: selector.name ? `metadata.name=${selector.name}` : undefined,
    atMost: Math.floor(room / names),
  });
  if (objects.length * names > room) return { contexts: [], overLimit: objects.length * names };
  const contexts = unrollSelectedObjects(
    objects,
    selector.packageNames,
    target,
    index,
    upstreamPackage,
  );
  const criteria = [
    labelSelector && `labels ${labelSelector}`,
    selector.name && `name ${selector.name}`,
  ].filter(Boolean);
  const empty =
    contexts.length === 0
      ? `spec.targets[${index}] selects nothing: no ${selector.kind} (${selector.apiVersion}) in namespace ${namespace}${criteria.length ? ` with ${criteria.join(" and ")}` : ""}`
      : undefined;
  return { contexts, empty };
}

/**
 * Target unrolling (docs/package-variant-sets.md, “Targets”). A target whose kind is not
 * served is reported, not fatal, so the other targets still reconcile; any other lookup
 * failure throws (the reconcile retries and, meanwhile, nothing is deleted). Targets are counted
 * before they are built, and unrolling stops at the first that takes the count past
 * `maxTargets`: a tenant's selectors × package names never cost more than the limit.
 */
export async function unrollTargets(
  ctx: OperatorContext,
  set: PackageVariantSet,
  maxTargets: number,
): Promise<UnrolledTargets> {
  const namespace = set.metadata?.namespace ?? "";
  const upstreamPackage = set.spec?.upstream?.package ?? "";
  const result: UnrolledTargets = { contexts: [], noMatch: [], empty: [] };
  for (const [i, target] of (set.spec?.targets ?? []).entries()) {
    const room = maxTargets - result.contexts.length;
    if (target.repositories) {
      const count = repositoryListCount(target);
      if (count > room) return { ...result, overLimit: result.contexts.length + count };
      result.contexts.push(...unrollRepositoryList(target, i, upstreamPackage));
      continue;
    }
    try {
      const { contexts, empty, overLimit } = await unrollSelector(
        ctx,
        target,
        i,
        namespace,
        upstreamPackage,
        room,
      );
      if (overLimit !== undefined)
        return { ...result, overLimit: result.contexts.length + overLimit };
      result.contexts.push(...contexts);
      if (empty) result.empty.push(empty);
    } catch (error) {
      if (!(error instanceof NoMatchError)) throw error;
      result.noMatch.push(`spec.targets[${i}]: ${error.message}`);
    }
  }
  return result;
}
