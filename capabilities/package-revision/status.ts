import { PackageRevision, PackageRevisionKind, PackageRevisionStatus } from "../../crd-types";
import { Condition, setCondition } from "../../lib/kubernetes/conditions";
import {
  conditionTypesOf,
  FIELD_MANAGERS,
  revisionConditions,
  revisionFields,
  type ConditionManager,
  type CoreFields,
  type OwnedBy,
  type RenderFields,
  type RevisionCondition,
  type RevisionOutcome,
} from "../../lib/package-revision";
import type { OperatorContext } from "../context";

/**
 * The three status field managers (docs/package-revisions.md, “Status field managers”). Each
 * apply states every field its manager owns, so a write by one never clears the fields of
 * another (a lifecycle write keeps render state).
 */
export const MANAGER = FIELD_MANAGERS;

type Status = PackageRevisionStatus;

/**
 * The conditions `manager` states: all it owns as they are, with `updates` set. Which types it
 * owns comes from the one table its updates are typed by (lib/package-revision/conditions.ts).
 */
function conditionsOf<M extends ConditionManager>(
  pr: PackageRevision,
  manager: M,
  updates: RevisionCondition<OwnedBy<M>>[],
  now: Date,
): Status["conditions"] {
  const owned: string[] = conditionTypesOf(manager);
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

/** Ready/Upgraded conditions, revision, publish info, locks and creationSource. */
function applyCoreStatus(
  ctx: OperatorContext,
  pr: PackageRevision,
  fields: Partial<CoreFields>,
  conditions: RevisionCondition<OwnedBy<"core">>[],
) {
  const s = pr.status ?? {};
  const merged: CoreFields = {
    observedGeneration: pr.metadata?.generation,
    revision: s.revision,
    publishedBy: s.publishedBy,
    publishedAt: s.publishedAt,
    upstreamLock: s.upstreamLock,
    selfLock: s.selfLock,
    creationSource: s.creationSource,
    ...fields,
  };
  const stated = conditionsOf(pr, "core", conditions, ctx.now());
  return apply(ctx, pr, defined({ ...merged, conditions: stated }), MANAGER.core);
}

/** The Rendered condition and the PackageRevisionResources versions being / last rendered. */
export function applyRenderStatus(
  ctx: OperatorContext,
  pr: PackageRevision,
  fields: Partial<RenderFields>,
  conditions: RevisionCondition<OwnedBy<"render">>[] = [],
) {
  const s = pr.status ?? {};
  const merged: RenderFields = {
    renderingPrrResourceVersion: s.renderingPrrResourceVersion,
    observedPrrResourceVersion: s.observedPrrResourceVersion,
    ...fields,
  };
  const stated = conditionsOf(pr, "render", conditions, ctx.now());
  return apply(ctx, pr, defined({ ...merged, conditions: stated }), MANAGER.render);
}

/**
 * States a step's outcome: one apply per field manager it concerns, render before core (Ready
 * follows from Rendered). Returns the object as the last apply answered, or undefined when the
 * outcome states nothing.
 */
export async function stateOutcome(
  ctx: OperatorContext,
  pr: PackageRevision,
  outcome: RevisionOutcome,
): Promise<PackageRevision | undefined> {
  const conditions = revisionConditions(outcome);
  const fields = revisionFields(outcome);
  let stated: PackageRevision | undefined;
  if (fields.render || conditions.render)
    stated = await applyRenderStatus(ctx, pr, fields.render ?? {}, conditions.render ?? []);
  if (fields.core || conditions.core)
    stated = await applyCoreStatus(ctx, pr, fields.core ?? {}, conditions.core ?? []);
  return stated;
}

/** Kptfile-derived state: the package's own conditions (e.g. config injection). */
export function applyKptfileStatus(
  ctx: OperatorContext,
  pr: PackageRevision,
  packageConditions: Status["packageConditions"],
) {
  return apply(ctx, pr, { packageConditions: packageConditions ?? [] }, MANAGER.kptfile);
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
  const conditions = conditionsOf(pr, "approval", [update], ctx.now());
  return apply(ctx, pr, { conditions }, MANAGER.approval);
}
