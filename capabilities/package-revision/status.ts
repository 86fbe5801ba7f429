import { PackageRevision, PackageRevisionKind, PackageRevisionStatus } from "../../crd-types";
import { Condition, ConditionInput, setCondition } from "../../lib/kubernetes/conditions";
import { FIELD_MANAGERS } from "../../lib/packages/field-managers";
import type { OperatorContext } from "../context";

/**
 * The three status field managers (docs/package-revisions.md, “Status field managers”). Each
 * apply states every field its manager owns, so a write by one never clears the fields of
 * another (a lifecycle write keeps render state).
 */
export const MANAGER = FIELD_MANAGERS;

const CORE_CONDITIONS = ["Ready", "Upgraded"];
const RENDER_CONDITIONS = ["Rendered"];

type Status = PackageRevisionStatus;
type CoreFields = Pick<
  Status,
  | "observedGeneration"
  | "revision"
  | "publishedBy"
  | "publishedAt"
  | "upstreamLock"
  | "selfLock"
  | "creationSource"
>;
type RenderFields = Pick<Status, "renderingPrrResourceVersion" | "observedPrrResourceVersion">;

function conditionsOf(
  pr: PackageRevision,
  types: string[],
  updates: ConditionInput[],
  now: Date,
): Condition[] {
  let conditions = ((pr.status?.conditions ?? []) as Condition[]).filter(c =>
    types.includes(c.type),
  );
  for (const update of updates)
    conditions = setCondition(conditions, update, pr.metadata?.generation, now);
  return conditions;
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
export function applyCoreStatus(
  ctx: OperatorContext,
  pr: PackageRevision,
  fields: Partial<CoreFields>,
  conditions: ConditionInput[] = [],
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
  return apply(
    ctx,
    pr,
    defined({
      ...merged,
      conditions: conditionsOf(pr, CORE_CONDITIONS, conditions, ctx.now()) as Status["conditions"],
    }),
    MANAGER.core,
  );
}

/** The Rendered condition and the PackageRevisionResources versions being / last rendered. */
export function applyRenderStatus(
  ctx: OperatorContext,
  pr: PackageRevision,
  fields: Partial<RenderFields>,
  rendered?: ConditionInput,
) {
  const s = pr.status ?? {};
  const merged: RenderFields = {
    renderingPrrResourceVersion: s.renderingPrrResourceVersion,
    observedPrrResourceVersion: s.observedPrrResourceVersion,
    ...fields,
  };
  const conditions = conditionsOf(pr, RENDER_CONDITIONS, rendered ? [rendered] : [], ctx.now());
  return apply(
    ctx,
    pr,
    defined({ ...merged, conditions: conditions as Status["conditions"] }),
    MANAGER.render,
  );
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
  update: ConditionInput,
) {
  const conditions = conditionsOf(pr, ["ApprovalPolicy"], [update], ctx.now());
  return apply(ctx, pr, { conditions: conditions as Status["conditions"] }, MANAGER.approval);
}
