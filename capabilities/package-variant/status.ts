import { K8s } from "pepr";
import { isDeepStrictEqual } from "node:util";
import { PackageRevisionResources, PackageVariant, PackageVariantStatus } from "../../crd-types";
import { Condition, setCondition } from "../../lib/kubernetes/conditions";
import { isNotFound } from "../shared/api-errors";

export interface VariantOutcome {
  /** Needs the user: an invalid spec or a missing upstream (the reference's ValidationError). */
  stalled?: string;
  /** What failed this time; a retry may fix it. */
  errors: string[];
  /** The downstream revisions this variant manages now (status.downstreamTargets). */
  targets: string[];
}

async function renderStatusOf(namespace: string, name: string) {
  try {
    const prr = await K8s(PackageRevisionResources).InNamespace(namespace).Get(name);
    return prr.status?.renderStatus;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Stalled and Ready with the reference's reasons (ValidationError / Valid; Error / NoErrors),
 * observedGeneration, and downstreamTargets with each target's render status. Written only
 * when something changed.
 */
export async function writeVariantStatus(
  pv: PackageVariant,
  outcome: VariantOutcome,
): Promise<void> {
  const generation = pv.metadata?.generation;
  let conditions = (pv.status?.conditions ?? []) as Condition[];
  conditions = setCondition(
    conditions,
    outcome.stalled
      ? { type: "Stalled", status: "True", reason: "ValidationError", message: outcome.stalled }
      : {
          type: "Stalled",
          status: "False",
          reason: "Valid",
          message: "all validation checks passed",
        },
    generation,
  );
  const failure = outcome.stalled ? "invalid packagevariant object" : outcome.errors.join("; ");
  conditions = setCondition(
    conditions,
    failure
      ? { type: "Ready", status: "False", reason: "Error", message: failure }
      : {
          type: "Ready",
          status: "True",
          reason: "NoErrors",
          message: "successfully ensured downstream package variant",
        },
    generation,
  );
  const ns = pv.metadata?.namespace ?? "";
  const downstreamTargets = await Promise.all(
    outcome.targets.map(async name => {
      const renderStatus = await renderStatusOf(ns, name);
      return { name, ...(renderStatus && { renderStatus }) };
    }),
  );
  const status: PackageVariantStatus = {
    observedGeneration: generation,
    conditions: conditions as PackageVariantStatus["conditions"],
    downstreamTargets,
  };
  if (isDeepStrictEqual(status, pv.status)) return;
  await K8s(PackageVariant).PatchStatus({
    metadata: { name: pv.metadata?.name, namespace: ns },
    status,
  });
}
