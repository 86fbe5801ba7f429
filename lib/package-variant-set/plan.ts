import { isDeepStrictEqual } from "node:util";
import type { PackageVariantSpec } from "../../crd-types";
import { packageVariantIdentifier, packageVariantName } from "./naming";

export interface DesiredVariant {
  identifier: string;
  name: string;
  spec: PackageVariantSpec;
  /** Its rollout wave (rollout.ts), when the set has spec.rollout. */
  wave?: number;
}

export interface ExistingVariant {
  metadata?: { name?: string; deletionTimestamp?: Date };
  spec?: PackageVariantSpec;
}

export interface SetPlan {
  create: DesiredVariant[];
  update: { existing: ExistingVariant; desired: DesiredVariant }[];
  unchanged: { existing: ExistingVariant; desired: DesiredVariant }[];
  delete: ExistingVariant[];
}

/**
 * The PackageVariant a set wants, with the CRD's defaults spelled out: the API server stores
 * them, so a spec without them would never compare equal and every reconcile would rewrite it.
 */
export function desiredVariant(setName: string, rendered: PackageVariantSpec): DesiredVariant {
  const spec: PackageVariantSpec = {
    adoptionPolicy: "adoptNone",
    deletionPolicy: "delete",
    ...rendered,
  };
  const identifier = packageVariantIdentifier(
    setName,
    spec.downstream?.repo ?? "",
    spec.downstream?.package ?? "",
  );
  return { identifier, name: packageVariantName(identifier), spec };
}

/**
 * Set-based reconciliation (docs/package-variant-sets.md, “Set reconciliation”): existing
 * PackageVariants (found by the set's label) are matched to desired ones by identifier, recomputed
 * from their spec. Only existing gives delete, both gives update (when the spec differs), only
 * desired gives create. `mayDelete` is false when the desired set is incomplete (a lookup or a
 * template failed): then nothing is deleted, because a target we could not compute is not a target
 * that went away.
 */
export function planSet(
  setName: string,
  desired: DesiredVariant[],
  existing: ExistingVariant[],
  mayDelete: boolean,
): SetPlan {
  const byIdentifier = new Map<string, ExistingVariant>();
  const duplicates: ExistingVariant[] = [];
  for (const pv of existing) {
    const id = packageVariantIdentifier(
      setName,
      pv.spec?.downstream?.repo ?? "",
      pv.spec?.downstream?.package ?? "",
    );
    if (byIdentifier.has(id)) duplicates.push(pv);
    else byIdentifier.set(id, pv);
  }
  const plan: SetPlan = { create: [], update: [], unchanged: [], delete: [] };
  for (const d of desired) {
    const match = byIdentifier.get(d.identifier);
    byIdentifier.delete(d.identifier);
    if (!match) plan.create.push(d);
    else if (isDeepStrictEqual(match.spec, d.spec))
      plan.unchanged.push({ existing: match, desired: d });
    else plan.update.push({ existing: match, desired: d });
  }
  if (mayDelete) plan.delete.push(...byIdentifier.values(), ...duplicates);
  return plan;
}

interface Owned {
  metadata?: {
    name?: string;
    ownerReferences?: { kind?: string; name?: string; uid?: string; controller?: boolean }[];
  };
}

/**
 * Why a PackageVariant this set wants cannot be created because one of that name exists, or
 * undefined when the existing one is the set's own (its watch had not delivered it yet). Another
 * object's variant is never taken over, and the target is reported failed, naming its owner.
 */
export function nameTakenMessage(existing: Owned, setUid: string): string | undefined {
  const controller = existing.metadata?.ownerReferences?.find(o => o.controller);
  if (controller?.uid === setUid) return undefined;
  const name = existing.metadata?.name ?? "";
  return controller
    ? `PackageVariant "${name}" already exists and is controlled by ${controller.kind} "${controller.name}", not by this set`
    : `PackageVariant "${name}" already exists and is not controlled by this set (it has no controller)`;
}
