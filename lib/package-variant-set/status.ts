// What a PackageVariantSet's status says: conditions, one entry per target, counts.
import type { PackageVariant, PackageVariantSet, PackageVariantSetStatus } from "../../crd-types";
import { Condition, findCondition, setCondition } from "../kubernetes/conditions";
import type { DesiredVariant } from "./plan";
import { withPlanCondition, type PlanDecision, type PlanStatus } from "./plan-preview";

/** The PackageVariant's Ready reason while its draft waits for content (not a failure). */
const VARIANT_PENDING_REASON = "Pending";

/** What one reconcile found out; turned into conditions, targets and counts at the end. */
export interface SetOutcome {
  /**
   * Set when the set cannot make progress without a change by the user (reasons:
   * docs/package-variant-sets.md, “Conditions”).
   */
  stalled?: { reason: string; message: string };
  /** Set when some work failed that a retry may fix. */
  error?: string;
  /** The targets were not computed (a lookup failed): keep reporting the previous ones. */
  incomplete?: boolean;
  desired: DesiredVariant[];
  /** Targets whose template could not be rendered: repo/package defaults and the error. */
  failedTargets: { repository: string; package: string; message: string }[];
  /** Selector targets that selected nothing, one message each (not failures). */
  emptyTargets: string[];
  /** PackageVariant name → why writing it failed. */
  writeFailures: Map<string, string>;
  variants: Map<string, PackageVariant>;
  /** In Plan mode: status.plan and whether it was applied (absent in Apply mode). */
  plan?: { status: PlanStatus; decision: PlanDecision };
}

export const emptyOutcome = (): SetOutcome => ({
  desired: [],
  failedTargets: [],
  emptyTargets: [],
  writeFailures: new Map(),
  variants: new Map(),
});

export type StatusTarget = NonNullable<PackageVariantSetStatus["targets"]>[number];

/**
 * A target is ready only when its PackageVariant says Ready=True for its current generation: a
 * condition written for an older spec, or a draft still waiting for its content, is not known
 * to be ready yet (Unknown, with why), and neither counts as failed.
 */
function targetOf(d: DesiredVariant, outcome: SetOutcome): StatusTarget {
  const base = {
    packageVariant: d.name,
    repository: d.spec.downstream?.repo,
    package: d.spec.downstream?.package,
  };
  const failure = outcome.writeFailures.get(d.name);
  if (failure) return { ...base, ready: "False", message: failure };
  const pv = outcome.variants.get(d.name);
  const ready = findCondition(pv?.status?.conditions as Condition[] | undefined, "Ready");
  if (!ready) return { ...base, ready: "Unknown" };
  const generation = pv?.metadata?.generation;
  if (generation !== undefined && ready.observedGeneration !== generation)
    return {
      ...base,
      ready: "Unknown",
      message: `waiting for PackageVariant "${d.name}" to be reconciled at generation ${generation}`,
    };
  if (ready.status === "False" && ready.reason === VARIANT_PENDING_REASON)
    return { ...base, ready: "Unknown", message: ready.message };
  return {
    ...base,
    ready: ready.status,
    ...(ready.status !== "True" && { message: ready.message }),
  };
}

function conditionsOf(set: PackageVariantSet, outcome: SetOutcome, now: Date): Condition[] {
  const generation = set.metadata?.generation;
  let conditions = (set.status?.conditions ?? []) as Condition[];
  const stalled = outcome.stalled;
  conditions = setCondition(
    conditions,
    stalled
      ? { type: "Stalled", status: "True", ...stalled }
      : {
          type: "Stalled",
          status: "False",
          reason: "Valid",
          message: "all validation checks passed",
        },
    generation,
    now,
  );
  const problem =
    stalled ?? (outcome.error ? { reason: "UnexpectedError", message: outcome.error } : undefined);
  return setCondition(
    conditions,
    problem
      ? { type: "Ready", status: "False", ...problem }
      : {
          type: "Ready",
          status: "True",
          reason: "Reconciled",
          message: "package variants successfully reconciled",
        },
    generation,
    now,
  );
}

/** Records why the set cannot progress; several reasons keep the first and all messages. */
export function stall(outcome: SetOutcome, reason: string, message: string): void {
  outcome.stalled = outcome.stalled
    ? { reason: outcome.stalled.reason, message: `${outcome.stalled.message}; ${message}` }
    : { reason, message };
}

/**
 * status.targets lists the targets that need attention (not Ready=True), at most this many; the
 * counts cover all of them. Listing every target made a set of 1,000 a 310 KB object rewritten
 * at each change of any one, and a set of about 5,000 larger than etcd accepts.
 */
export const LISTED_TARGETS_LIMIT = 100;

export function buildStatus(
  set: PackageVariantSet,
  outcome: SetOutcome,
  now: Date,
): PackageVariantSetStatus {
  const common = conditionsOf(set, outcome, now);
  // An incomplete reconcile keeps the previous status.plan, and so its condition.
  const conditions = (
    outcome.incomplete
      ? common
      : withPlanCondition(common, outcome.plan, set.metadata?.generation, now)
  ) as PackageVariantSetStatus["conditions"];
  if (outcome.incomplete) {
    return { ...set.status, observedGeneration: set.metadata?.generation, conditions };
  }
  const failed = outcome.failedTargets.map(f => ({
    packageVariant: "",
    ready: "False" as const,
    ...f,
  }));
  const targets: StatusTarget[] = [...outcome.desired.map(d => targetOf(d, outcome)), ...failed];
  // An empty selection is said per target but is no PackageVariant: the counts leave it out.
  // Listed first and always, so that newlyEmptyTargets finds what was already announced.
  const empty = outcome.emptyTargets.map(message => ({ packageVariant: "", message }));
  const attention = [...failed, ...targets.filter(t => t.packageVariant && t.ready !== "True")];
  return {
    observedGeneration: set.metadata?.generation,
    conditions,
    targets: [...empty, ...attention.slice(0, Math.max(0, LISTED_TARGETS_LIMIT - empty.length))],
    counts: {
      desired: targets.length,
      ready: targets.filter(t => t.ready === "True").length,
      failed: targets.filter(t => t.ready === "False").length,
    },
    ...(outcome.plan && { plan: outcome.plan.status }),
  };
}

/** Empty selections the set's status does not show yet: each gets one event, not one per reconcile. */
export function newlyEmptyTargets(set: PackageVariantSet, outcome: SetOutcome): string[] {
  const shown = new Set(
    (set.status?.targets ?? []).filter(t => !t.packageVariant && !t.ready).map(t => t.message),
  );
  return outcome.emptyTargets.filter(m => !shown.has(m));
}
