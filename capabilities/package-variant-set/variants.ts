import { PackageVariant, PackageVariantKind, PackageVariantSet } from "../../crd-types";
import { errorMessage } from "../../lib/errors";
import { mapLimit } from "../../lib/controller/concurrency";
import { PACKAGE_VARIANT_FINALIZER } from "../../lib/package-variant";
import { DesiredVariant, nameTakenMessage, SetPlan } from "../../lib/package-variant-set";
import type { Indexers } from "../../lib/controller/watch-cache";
import { findCondition } from "../../lib/kubernetes/conditions";
import type { OperatorContext } from "../context";

export const SET_LABEL = "config.porch.kpt.dev/packagevariantset";

/** Writes to the API at a time; a set of a thousand targets must not open a thousand requests. */
const WRITE_CONCURRENCY = 16;

/** By the set that made them, and whether they are stalled ("true"). */
export const variantIndexers: Indexers<PackageVariant> = {
  set: pv => pv.metadata?.labels?.[SET_LABEL],
  stalled: pv =>
    findCondition(pv.status?.conditions, "Stalled")?.status === "True" ? "true" : undefined,
};

/**
 * The set's PackageVariants, from the watch's cache (no LIST per reconcile). It may lag by an
 * event, which the plan tolerates: a create that finds the variant already there is left to
 * the next reconcile (its event triggers one), deletes accept NotFound, updates replace the spec.
 */
export async function listVariants(
  ctx: OperatorContext,
  set: PackageVariantSet,
): Promise<PackageVariant[]> {
  const namespace = set.metadata?.namespace ?? "";
  const cache = ctx.caches.variants;
  await cache.prime(namespace, () => ctx.cluster.list(PackageVariantKind, { namespace }));
  return cache.by("set", set.metadata?.uid ?? "");
}

function newVariant(set: PackageVariantSet, desired: DesiredVariant): PackageVariant {
  return {
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "PackageVariant",
    metadata: {
      name: desired.name,
      namespace: set.metadata?.namespace,
      labels: { [SET_LABEL]: set.metadata?.uid ?? "" },
      ownerReferences: [
        {
          apiVersion: "config.porch.kpt.dev/v1alpha2",
          kind: "PackageVariantSet",
          name: set.metadata?.name ?? "",
          uid: set.metadata?.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      finalizers: [PACKAGE_VARIANT_FINALIZER],
    },
    spec: desired.spec,
  };
}

/** A create found the name taken: fine if by this set's own variant, else a failure naming the owner. */
async function checkNameTaken(
  ctx: OperatorContext,
  set: PackageVariantSet,
  name: string,
): Promise<void> {
  const existing = await ctx.cluster.get(PackageVariantKind, {
    namespace: set.metadata?.namespace,
    name,
  });
  if (!existing) throw new Error(`PackageVariant "${name}" is being deleted; retrying`);
  const taken = nameTakenMessage(existing, set.metadata?.uid ?? "");
  if (taken) throw new Error(taken);
}

export interface PlanOutcome {
  created: number;
  updated: number;
  deleted: number;
  /** PackageVariant name → why it could not be written (e.g. the webhook denied it). */
  failures: Map<string, string>;
}

/**
 * Carries out a set plan: creates new PackageVariants (owned by the set, labelled with its
 * UID, with the PackageVariant finalizer), replaces only the spec of changed ones, and deletes
 * obsolete ones (their finalizer applies their deletion policy).
 */
export async function applyPlan(
  ctx: OperatorContext,
  set: PackageVariantSet,
  plan: SetPlan,
): Promise<PlanOutcome> {
  const outcome: PlanOutcome = { created: 0, updated: 0, deleted: 0, failures: new Map() };
  const namespace = set.metadata?.namespace ?? "";
  const attempt = async (name: string, write: () => Promise<unknown>, done: () => void) => {
    try {
      await write();
      done();
    } catch (error) {
      outcome.failures.set(name, errorMessage(error));
    }
  };
  await mapLimit(plan.create, WRITE_CONCURRENCY, d => {
    let created = true;
    return attempt(
      d.name,
      async () => {
        const made = await ctx.cluster.create(PackageVariantKind, newVariant(set, d), {
          tolerateExisting: true,
        });
        if (made) return;
        created = false;
        await checkNameTaken(ctx, set, d.name);
      },
      () => created && outcome.created++,
    );
  });
  await mapLimit(plan.update, WRITE_CONCURRENCY, ({ existing, desired }) => {
    const name = existing.metadata?.name ?? "";
    return attempt(
      name,
      () =>
        ctx.cluster.patch(
          PackageVariantKind,
          { namespace, name },
          { json: [{ op: "replace", path: "/spec", value: desired.spec }] },
        ),
      () => outcome.updated++,
    );
  });
  await mapLimit(plan.delete, WRITE_CONCURRENCY, existing => {
    const name = existing.metadata?.name ?? "";
    return attempt(
      name,
      () => ctx.cluster.delete(PackageVariantKind, { namespace, name }),
      () => outcome.deleted++,
    );
  });
  return outcome;
}
