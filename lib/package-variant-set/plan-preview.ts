// A set's plan in Plan mode (docs/package-variant-sets.md, “A plan before anything changes”):
// what applying would do to each target, the preview of each upgrade's three-way merge, the
// plan's id and whether the approved one may be applied. Pure: the capability reads the
// revisions and their files and passes them in.
import { createHash } from "node:crypto";
import type { PackageRevision, PackageVariantSetStatus, PackageVariantSpec } from "../../crd-types";
import { upgradePackage, UpgradeError, type GitLock, type UpgradeInput } from "../kpt";
import { setCondition, type Condition } from "../kubernetes/conditions";
import type { DownstreamStep, VariantPlan } from "../package-variant";
import { specDiff } from "./diff";
import type { DesiredVariant, ExistingVariant, SetPlan } from "./plan";

export type PlanStatus = NonNullable<PackageVariantSetStatus["plan"]>;
export type PlanEntry = NonNullable<PlanStatus["entries"]>[number];
export type PlanAction = PlanEntry["action"] | "unchanged";

/** Entries listed in status.plan (the counts cover all), as status.targets lists at most 100. */
export const PLAN_LISTED_ENTRIES = 100;
/**
 * Upgrades whose merge is previewed per reconcile: each reads three packages (up to 1 MiB each
 * under the content limits), so a plan of 1,000 upgrades reads 60, not 3,000, and the rest say so.
 */
export const PLAN_PREVIEWED_UPGRADES = 20;
export const PLAN_LISTED_FILES = 20;
export const PLAN_LISTED_CONFLICTS = 10;
export const PLAN_LISTED_FIELDS = 10;
/**
 * Texts a tenant's spec or files decide are cut, so that 100 entries stay far below etcd's
 * object limit: at most about 450 KB in all, the previews of 20 upgrades included. A conflict
 * names a field and two values, each already cut to 80 characters.
 */
const MAX_CONFLICT_CHARS = 512;
const MAX_FIELD_CHARS = 200;
const MAX_FILE_CHARS = 256;
const MAX_MESSAGE_CHARS = 512;

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** The three revisions an upgrade's merge reads: base, theirs, ours. */
export interface UpgradeRevisions {
  oldUpstream: PackageRevision;
  newUpstream: PackageRevision;
  downstream: PackageRevision;
}

/** One target: its entry, what the set would write for it, and the merge to preview. */
export interface PlannedTarget {
  action: PlanAction;
  entry: PlanEntry | undefined;
  /** The spec the set writes (create, changed spec), or "delete"; hashed into the plan's id. */
  writes?: PackageVariantSpec | "delete";
  upgrade?: UpgradeRevisions;
}

export type UpgradePreview = Pick<
  PlanEntry,
  "changedFiles" | "unlistedFiles" | "conflicts" | "unlistedConflicts" | "message"
>;

/** `2`, or `draft v3` for an unpublished revision selected by workspace name. */
function revisionOf(pr: PackageRevision): string {
  const n = pr.status?.revision;
  return n && n > 0 ? String(n) : `draft ${pr.spec?.workspaceName ?? ""}`;
}

function upstreamOf(spec: PackageVariantSpec | undefined): string | undefined {
  const u = spec?.upstream;
  if (u?.workspaceName) return `draft ${u.workspaceName}`;
  return u?.revision === undefined ? undefined : String(u.revision).replace(/^v/, "");
}

function bounded<T>(items: T[], limit: number): { listed: T[]; unlisted?: number } {
  return items.length > limit
    ? { listed: items.slice(0, limit), unlisted: items.length - limit }
    : { listed: items };
}

function base(name: string, spec: PackageVariantSpec | undefined) {
  return {
    packageVariant: name,
    repository: spec?.downstream?.repo,
    package: spec?.downstream?.package,
  };
}

type UpstreamChanged = Extract<DownstreamStep, { state: "UPSTREAM_CHANGED" }>;

/**
 * What applying does to one existing variant, from the PackageVariant state machine run on the
 * spec the set would write: an UPSTREAM_CHANGED step is an upgrade (from the revision the
 * downstream was made from), a changed spec without one is an update, else nothing.
 */
function existingTarget(
  existing: ExistingVariant,
  desired: DesiredVariant,
  variantPlan: VariantPlan | undefined,
): PlannedTarget {
  const fields = specDiff(existing.spec, desired.spec);
  const changed = fields.length > 0;
  const listedFields = bounded(fields, PLAN_LISTED_FIELDS).listed.map(f =>
    clip(f, MAX_FIELD_CHARS),
  );
  const entry = {
    ...base(desired.name, desired.spec),
    ...(changed && { changedFields: listedFields }),
  };
  const writes = changed ? desired.spec : undefined;
  const step = variantPlan?.steps.find((s): s is UpstreamChanged => s.state === "UPSTREAM_CHANGED");
  if (step?.kind === "error")
    return {
      action: "upgrade",
      writes,
      entry: { ...entry, action: "upgrade", message: clip(step.message, MAX_MESSAGE_CHARS) },
    };
  if (step) {
    const upgrade = {
      oldUpstream: step.oldUpstream,
      newUpstream: step.newUpstream,
      downstream: step.downstream,
    };
    const revisions = {
      fromRevision: revisionOf(step.oldUpstream),
      toRevision: revisionOf(step.newUpstream),
    };
    return {
      action: "upgrade",
      writes,
      upgrade,
      entry: { ...entry, action: "upgrade", ...revisions },
    };
  }
  if (changed) return { action: "update", writes, entry: { ...entry, action: "update" } };
  return { action: "unchanged", entry: undefined };
}

/**
 * Every target of a set plan, classified. `variantPlans` holds, by PackageVariant name, the state
 * machine's plan for each existing variant under the spec the set would give it.
 */
export function plannedTargets(
  plan: SetPlan,
  variantPlans: ReadonlyMap<string, VariantPlan>,
): PlannedTarget[] {
  const creates = plan.create.map(
    (d): PlannedTarget => ({
      action: "create",
      writes: d.spec,
      entry: { ...base(d.name, d.spec), action: "create", toRevision: upstreamOf(d.spec) },
    }),
  );
  const existing = [...plan.update, ...plan.unchanged].map(({ existing, desired }) =>
    existingTarget(existing, desired, variantPlans.get(desired.name)),
  );
  const deletes = plan.delete.map(
    (pv): PlannedTarget => ({
      action: "delete",
      writes: "delete",
      entry: { ...base(pv.metadata?.name ?? "", pv.spec), action: "delete" },
    }),
  );
  return [...creates, ...existing, ...deletes];
}

/** A preview that could not be computed (a package not readable): why, cut to size. */
export const failedPreview = (why: string): UpgradePreview => ({
  message: clip(why, MAX_MESSAGE_CHARS),
});

/**
 * The merge an upgrade would make, in memory: the files of `local` it adds, changes or removes,
 * and the conflicts it would record (as the Upgraded condition says them). The upgrade strategy
 * is the one the PackageVariant's drafts use.
 */
export function previewUpgrade(input: UpgradeInput, newUpstreamLock: GitLock): UpgradePreview {
  let result;
  try {
    result = upgradePackage(input, "resource-merge", newUpstreamLock);
  } catch (error) {
    if (error instanceof UpgradeError)
      return failedPreview(`the upgrade would fail: ${error.message}`);
    throw error;
  }
  const paths = [...new Set([...Object.keys(input.local), ...Object.keys(result.files)])].sort();
  const files = bounded(
    paths.filter(p => input.local[p] !== result.files[p]).map(p => clip(p, MAX_FILE_CHARS)),
    PLAN_LISTED_FILES,
  );
  const conflicts = bounded(
    result.conflicts.map(c => clip(c.message, MAX_CONFLICT_CHARS)),
    PLAN_LISTED_CONFLICTS,
  );
  return {
    changedFiles: files.listed,
    ...(files.unlisted && { unlistedFiles: files.unlisted }),
    conflicts: conflicts.listed,
    ...(conflicts.unlisted && { unlistedConflicts: conflicts.unlisted }),
  };
}

/**
 * The plan's id: a hash of what the set would write and of the revisions each such upgrade goes
 * between, in a stable order. Nothing else (no generation, no preview, no approval) enters it,
 * so approving a plan does not change its id, and a moved upstream or target does.
 */
export function planId(targets: readonly PlannedTarget[]): string {
  const written = targets
    .filter(t => t.writes !== undefined && t.entry)
    .map(t => [
      t.entry!.packageVariant,
      t.action,
      t.entry!.fromRevision,
      t.entry!.toRevision,
      t.writes,
    ])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  return createHash("sha256").update(JSON.stringify(written)).digest("hex").slice(0, 16);
}

const ACTIONS = ["create", "upgrade", "update", "delete", "unchanged"] as const;
/** Upgrades first (they carry the merge previews), then what is lost, then what is added. */
const LISTING_ORDER: PlanAction[] = ["upgrade", "delete", "create", "update"];

/** The upgrades whose merge is previewed: the first ones listed, at most PLAN_PREVIEWED_UPGRADES. */
export function upgradesToPreview(targets: readonly PlannedTarget[]): PlannedTarget[] {
  return targets.filter(t => t.upgrade).slice(0, PLAN_PREVIEWED_UPGRADES);
}

function previewOf(
  t: PlannedTarget,
  previews: ReadonlyMap<string, UpgradePreview>,
): UpgradePreview {
  return (
    previews.get(t.entry?.packageVariant ?? "") ?? {
      message: `files and conflicts not previewed: only the first ${PLAN_PREVIEWED_UPGRADES} upgrades of a plan are`,
    }
  );
}

export type PlanDecision =
  | { apply: true; reason: "Applied"; message: string }
  | {
      apply: false;
      reason: "AwaitingApproval" | "ApprovedPlanStale" | "NothingToApply" | "Applied";
      message: string;
    };

export interface PlanInputs {
  setName: string;
  generation: number | undefined;
  approvedPlan: string | undefined;
  /** status.plan.appliedPlan before this reconcile. */
  appliedPlan: string | undefined;
}

/**
 * status.plan and what to do with it: apply only when the set would write something and the
 * approved id is the current plan's (as `terraform apply` of a saved plan refuses a stale one).
 * `previews` holds the merge previews of upgrades, by PackageVariant name.
 */
export function decidePlan(
  targets: readonly PlannedTarget[],
  previews: ReadonlyMap<string, UpgradePreview>,
  inputs: PlanInputs,
): { status: PlanStatus; decision: PlanDecision } {
  const id = planId(targets);
  const counts = Object.fromEntries(
    ACTIONS.map(a => [a, targets.filter(t => t.action === a).length]),
  ) as Required<NonNullable<PlanStatus["counts"]>>;
  const summary =
    ACTIONS.filter(a => a !== "unchanged" && counts[a] > 0)
      .map(a => `${counts[a]} ${a}`)
      .join(", ") || "no changes";
  const listed = targets
    .filter(t => t.entry)
    .sort((a, b) => LISTING_ORDER.indexOf(a.action) - LISTING_ORDER.indexOf(b.action));
  const entries = bounded(
    listed.map(t => ({ ...t.entry!, ...(t.upgrade && previewOf(t, previews)) })),
    PLAN_LISTED_ENTRIES,
  );
  const writes = targets.some(t => t.writes !== undefined);
  const decision = decide(id, summary, writes, inputs);
  const status: PlanStatus = {
    id,
    generation: inputs.generation,
    summary,
    counts,
    entries: entries.listed,
    ...(entries.unlisted && { unlistedEntries: entries.unlisted }),
    ...((decision.apply ? id : inputs.appliedPlan) && {
      appliedPlan: decision.apply ? id : inputs.appliedPlan,
    }),
  };
  return { status, decision };
}

function decide(id: string, summary: string, writes: boolean, inputs: PlanInputs): PlanDecision {
  const { approvedPlan, appliedPlan, setName } = inputs;
  if (!writes)
    return approvedPlan && approvedPlan === appliedPlan
      ? {
          apply: false,
          reason: "Applied",
          message: `plan "${appliedPlan}" was applied; nothing more to apply (${summary})`,
        }
      : {
          apply: false,
          reason: "NothingToApply",
          message: `the PackageVariants match the set (${summary})`,
        };
  if (approvedPlan === id)
    return { apply: true, reason: "Applied", message: `plan "${id}" was applied (${summary})` };
  const approve = `kubectl patch packagevariantset ${setName} --type merge -p '{"spec":{"plan":{"approvedPlan":"${id}"}}}'`;
  if (approvedPlan && approvedPlan !== appliedPlan)
    return {
      apply: false,
      reason: "ApprovedPlanStale",
      message: `approved plan "${approvedPlan}" is not the current plan "${id}" (the upstream, the targets or the templates changed): nothing was applied; review status.plan and approve it with: ${approve}`,
    };
  return {
    apply: false,
    reason: "AwaitingApproval",
    message: `plan "${id}" (${summary}) waits for approval: ${approve}`,
  };
}

export const PLAN_CONDITION = "PlanApplied";

/**
 * The PlanApplied condition: True once the approved plan was applied (or there is nothing to
 * apply), False while a plan waits for approval or the approved one is stale. Apply mode has none.
 */
export function withPlanCondition(
  conditions: Condition[],
  plan: { decision: PlanDecision } | undefined,
  generation: number | undefined,
  now: Date,
): Condition[] {
  if (!plan) return conditions.filter(c => c.type !== PLAN_CONDITION);
  const { reason, message } = plan.decision;
  const done = reason === "Applied" || reason === "NothingToApply";
  return setCondition(
    conditions,
    { type: PLAN_CONDITION, status: done ? "True" : "False", reason, message },
    generation,
    now,
  );
}
