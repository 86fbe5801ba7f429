import { PackageRevision, PackageRevisionKind, PackageRevisionStatus } from "../../crd-types";
import { Condition, setCondition } from "../../lib/kubernetes/conditions";
import {
  conditionTypesOf,
  FIELD_MANAGERS,
  revisionConditions,
  revisionFields,
  type ConditionManager,
  type CoreFields,
  type ManagedConditions,
  type ManagedFields,
  type OwnedBy,
  type RenderFields,
  type RevisionCondition,
  type RevisionOutcome,
} from "../../lib/package-revision";
import type { OperatorContext } from "../context";

/**
 * The status field managers (docs/package-revisions.md, “Status field managers”). Each apply
 * states every field its manager owns, so a write by one never clears the fields of another (a
 * lifecycle write keeps render state). The core and render parts go in one apply under the
 * core manager: a step whose outcome concerns both (a new draft, rendered files git refused)
 * costs one request, not two, and a render's Kptfile conditions go with it.
 */
export const MANAGER = FIELD_MANAGERS;

type Status = PackageRevisionStatus;

/**
 * The conditions of the `parts` as they are, with `updates` set. Which types each part has
 * comes from the one table its updates are typed by (lib/package-revision/conditions.ts).
 */
function conditionsOf(
  pr: PackageRevision,
  parts: ConditionManager[],
  updates: RevisionCondition[],
  now: Date,
): Status["conditions"] {
  const owned: string[] = parts.flatMap(conditionTypesOf);
  let conditions = ((pr.status?.conditions ?? []) as Condition[]).filter(c =>
    owned.includes(c.type),
  );
  for (const update of updates)
    conditions = setCondition(conditions, update, pr.metadata?.generation, now);
  return conditions as Status["conditions"];
}

/** A server-side apply of one part of the revision, the status (subresource) or the spec. */
function applyPart(
  ctx: OperatorContext,
  pr: PackageRevision,
  part: { status: Status } | { spec: NonNullable<PackageRevision["spec"]> },
  manager: string,
): Promise<PackageRevision> {
  return ctx.cluster.apply(
    PackageRevisionKind,
    { metadata: { name: pr.metadata?.name ?? "", namespace: pr.metadata?.namespace }, ...part },
    manager,
    { status: "status" in part },
  );
}

async function apply(
  ctx: OperatorContext,
  pr: PackageRevision,
  status: Status,
  manager: string,
): Promise<PackageRevision> {
  const updated = await applyPart(ctx, pr, { status }, manager);
  // Later steps of the same reconcile read the status they just wrote.
  pr.status = updated.status;
  return updated;
}

const defined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** What one controller apply states: fields and conditions of the core and render parts. */
interface ControllerParts {
  fields: ManagedFields;
  conditions: Pick<ManagedConditions, "core" | "render">;
}

/**
 * Ready/Upgraded/Rendered, revision, publish info, locks, creationSource, the
 * PackageRevisionResources versions being / last rendered and the rendered Kptfile's
 * conditions: every field of both parts, the unchanged ones at their current value.
 * observedGeneration moves only with the core part (a render alone does not say the spec was
 * acted on).
 */
function applyControllerStatus(
  ctx: OperatorContext,
  pr: PackageRevision,
  { fields, conditions }: ControllerParts,
) {
  const s = pr.status ?? {};
  const core = fields.core !== undefined || conditions.core !== undefined;
  const merged: CoreFields & RenderFields = {
    observedGeneration: core ? pr.metadata?.generation : s.observedGeneration,
    revision: s.revision,
    publishedBy: s.publishedBy,
    publishedAt: s.publishedAt,
    upstreamLock: s.upstreamLock,
    selfLock: s.selfLock,
    creationSource: s.creationSource,
    renderingPrrResourceVersion: s.renderingPrrResourceVersion,
    observedPrrResourceVersion: s.observedPrrResourceVersion,
    // Stated at every apply, as every field of this manager: a revision an earlier version
    // wrote has them under the Kptfile manager, and this (forced) apply takes them over.
    packageConditions: s.packageConditions,
    ...fields.render,
    ...fields.core,
  };
  // No conditions where there were none: nothing to own.
  if (merged.packageConditions?.length === 0 && s.packageConditions === undefined)
    merged.packageConditions = undefined;
  // Rendered before Ready, as a render precedes what it makes ready.
  const updates = [...(conditions.render ?? []), ...(conditions.core ?? [])];
  const stated = conditionsOf(pr, ["core", "render"], updates, ctx.now());
  return apply(ctx, pr, defined({ ...merged, conditions: stated }), MANAGER.core);
}

/** The render part alone: the Rendered condition and the versions being / last rendered. */
export function applyRenderStatus(
  ctx: OperatorContext,
  pr: PackageRevision,
  fields: Partial<RenderFields>,
  conditions: RevisionCondition<OwnedBy<"render">>[] = [],
) {
  return applyControllerStatus(ctx, pr, {
    fields: { render: fields },
    conditions: { render: conditions },
  });
}

/**
 * States a step's outcome in one apply (the core and render parts together). Returns the
 * object as the apply answered, or undefined when the outcome states nothing.
 */
export async function stateOutcome(
  ctx: OperatorContext,
  pr: PackageRevision,
  outcome: RevisionOutcome,
): Promise<PackageRevision | undefined> {
  const conditions = revisionConditions(outcome);
  const fields = revisionFields(outcome);
  if (!fields.render && !conditions.render && !fields.core && !conditions.core) return undefined;
  return applyControllerStatus(ctx, pr, { fields, conditions });
}

/** Kptfile-derived spec: readiness gates and package metadata (the Kptfile is their source). */
export async function applyKptfileSpec(
  ctx: OperatorContext,
  pr: PackageRevision,
  spec: Pick<NonNullable<PackageRevision["spec"]>, "readinessGates" | "packageMetadata">,
): Promise<void> {
  const updated = await applyPart(ctx, pr, { spec }, MANAGER.kptfile);
  pr.metadata = updated.metadata;
  pr.spec = updated.spec;
}

export function condition(pr: PackageRevision, type: string): Condition | undefined {
  return (pr.status?.conditions as Condition[] | undefined)?.find(c => c.type === type);
}

/** The ApprovalPolicy condition (approval-policy.ts), under its own field manager. */
export function applyApprovalPolicyCondition(
  ctx: OperatorContext,
  pr: PackageRevision,
  update: RevisionCondition<"ApprovalPolicy">,
) {
  const conditions = conditionsOf(pr, ["approval"], [update], ctx.now());
  return apply(ctx, pr, { conditions }, MANAGER.approval);
}
