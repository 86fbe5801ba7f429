import { K8s } from "pepr";
import { isDeepStrictEqual } from "node:util";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageVariant,
  PackageVariantStatus,
} from "../../crd-types";
import { Condition, setCondition } from "../../lib/kubernetes/conditions";
import { isNotFound } from "../shared/api-errors";
import { cachedRevision } from "../shared/revision-cache";

export interface VariantOutcome {
  /** Needs the user: an invalid spec or a missing upstream (the reference's ValidationError). */
  stalled?: string;
  /** What failed this time; a retry may fix it. */
  errors: string[];
  /** The downstream revisions this variant manages now (status.downstreamTargets). */
  targets: string[];
}

type RenderStatus = NonNullable<PackageRevisionResources["status"]>["renderStatus"];

/**
 * Render status by revision name, as of the PackageRevisionResources version its revision says
 * was last rendered: a status write re-reads the (large) resources object only after a render.
 */
const renderStatuses = new Map<string, { version: string; renderStatus: RenderStatus }>();

export function forgetRenderStatus(pr: PackageRevision): void {
  renderStatuses.delete(`${pr.metadata?.namespace ?? ""}/${pr.metadata?.name ?? ""}`);
}

async function renderStatusOf(namespace: string, name: string): Promise<RenderStatus> {
  const key = `${namespace}/${name}`;
  const rendered = cachedRevision(namespace, name)?.status?.observedPrrResourceVersion;
  const known = renderStatuses.get(key);
  if (rendered && known?.version === rendered) return known.renderStatus;
  renderStatuses.delete(key);
  try {
    const prr = await K8s(PackageRevisionResources).InNamespace(namespace).Get(name);
    const renderStatus = prr.status?.renderStatus;
    // The render's status is written before the revision records the version it rendered.
    if (rendered && prr.metadata?.resourceVersion === rendered)
      renderStatuses.set(key, { version: rendered, renderStatus });
    return renderStatus;
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
