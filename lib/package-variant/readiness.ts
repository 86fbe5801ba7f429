// What a PackageVariant's Stalled and Ready conditions say. Ready=True means an up-to-date
// downstream draft exists with the variant's mutations rendered into it: a failed step, a draft
// still waiting for its content and a draft whose render failed or has not run are not ready.
import type { PackageRevision } from "../../crd-types";
import { isPublished } from "../git/types";
import { findCondition, type ConditionInput } from "../kubernetes/conditions";
import { sourcePendingMessage, type DownstreamStep } from "./state";

export interface VariantOutcome {
  /** Needs the user: an invalid spec or a missing upstream (the reference's ValidationError). */
  stalled?: string;
  /** What failed this time; a retry or a change may fix it. */
  errors: string[];
  /** Drafts without content yet (just created, or their source has not run). */
  pending: string[];
  /** Drafts whose git server was down at their last attempt (retried meanwhile). */
  unavailable?: string[];
  /** Drafts whose render of their current files failed: git lacks the variant's mutations. */
  renderFailed?: string[];
  /** Downstreams without an upstream lock: their upstream revision is unknown, never upgraded. */
  upstreamUnknown?: string[];
  /** Downstreams asked to be published and not numbered yet: Ready is left as it was. */
  publishing?: string[];
  /** The downstream revisions this variant manages now (status.downstreamTargets). */
  targets: string[];
}

/**
 * What a planned step means for Ready before it runs: a failure (an error step, a draft whose
 * source failed), or a draft that has no content yet. A step that runs and throws is a failure
 * too (the caller adds it).
 */
export function stepVerdict(step: DownstreamStep): {
  failure?: string;
  pending?: string;
  unavailable?: string;
  upstreamUnknown?: string;
  publishing?: string;
} {
  switch (step.kind) {
    case "error":
      return { failure: step.message };
    case "wait":
      if (step.failed) return { failure: step.message };
      if (step.unavailable) return { unavailable: step.message };
      // A publish in flight is no news (statusWaits): two status writes per publish saved.
      return step.publishing ? { publishing: step.message } : { pending: step.message };
    case "createClone":
    case "createUpgrade":
      return { pending: sourcePendingMessage(step.target) };
    case "checkMutations":
      return step.upstreamUnknown ? { upstreamUnknown: step.upstreamUnknown } : {};
    default:
      return {};
  }
}

/**
 * Whether a Draft or Proposed downstream rendered the files it holds now (`resourcesVersion`,
 * its PackageRevisionResources' resourceVersion): its draft branch gets the variant's mutations
 * only through that render. A published downstream's content is what was published.
 */
export function renderVerdict(
  downstream: PackageRevision,
  resourcesVersion: string | undefined,
): { renderFailed?: string; renderPending?: string } {
  if (isPublished(downstream.spec?.lifecycle)) return {};
  const name = downstream.metadata?.name ?? "";
  const rendered = findCondition(downstream.status?.conditions, "Rendered");
  if (
    !resourcesVersion ||
    downstream.status?.observedPrrResourceVersion !== resourcesVersion ||
    !rendered
  )
    return {
      renderPending: `waiting for PackageRevision "${name}" to render its current resources`,
    };
  if (rendered.status === "True") return {};
  return {
    renderFailed: `PackageRevision "${name}" did not render: ${rendered.reason}: ${rendered.message}`,
  };
}

/**
 * Stalled and Ready with the reference's reasons (ValidationError / Valid; Error / NoErrors),
 * plus Ready=False reason UpstreamLockMissing when a downstream has no upstream lock (the
 * reference only logs it), RenderFailed when a draft's render failed, Unavailable while a
 * draft's git server is down, and Pending while a draft waits for its content or its render.
 */
export function variantConditions(outcome: VariantOutcome): ConditionInput[] {
  const stalled: ConditionInput = outcome.stalled
    ? { type: "Stalled", status: "True", reason: "ValidationError", message: outcome.stalled }
    : {
        type: "Stalled",
        status: "False",
        reason: "Valid",
        message: "all validation checks passed",
      };
  const failures = outcome.stalled ? ["invalid packagevariant object"] : outcome.errors;
  // The first kind of problem found, in this order, is Ready's reason.
  const problem = (
    [
      ["Error", failures],
      ["UpstreamLockMissing", outcome.upstreamUnknown ?? []],
      ["RenderFailed", outcome.renderFailed ?? []],
      ["Unavailable", outcome.unavailable ?? []],
      ["Pending", outcome.pending],
    ] as const
  ).find(([, messages]) => messages.length > 0);
  const ready: ConditionInput = problem
    ? { type: "Ready", status: "False", reason: problem[0], message: problem[1].join("; ") }
    : {
        type: "Ready",
        status: "True",
        reason: "NoErrors",
        message: "successfully ensured downstream package variant",
      };
  return [stalled, ready];
}

/**
 * Whether the status stating `outcome` is left unwritten: all it would say is that the
 * variant's drafts wait for their source, and the status there is not of this generation.
 * Either it was never written (no observedGeneration: every reader sees a variant not
 * processed yet), or it states an older generation, as after a set's upgrade of the variant's
 * spec: its conditions carry that older observedGeneration, so `kubectl wait`, kstatus and the
 * set (which counts a target ready only at its current generation) read it as not yet
 * reconciled, and the `UpgradeDraftCreated` event says meanwhile what was done. The next news
 * (the draft made and rendered, or its source failed) is written instead: one request per
 * variant less at fan-out and at upgrade (docs/api-usage.md, “Requests per variant”). Anything
 * else, or a status of this generation, is stated as it is.
 */
export function statusWaits(
  status: { observedGeneration?: number; conditions?: unknown[] } | undefined,
  generation: number | undefined,
  outcome: VariantOutcome,
): boolean {
  const quiet =
    !outcome.stalled &&
    outcome.errors.length === 0 &&
    !outcome.unavailable?.length &&
    !outcome.renderFailed?.length &&
    !outcome.upstreamUnknown?.length;
  if (!quiet) return false;
  // A publish in flight and nothing else: the move is the revision's, and its content (with
  // the variant's mutations) is what the last status spoke of. A refused publish is a failure.
  if (outcome.pending.length === 0) return (outcome.publishing?.length ?? 0) > 0;
  const observed = status?.observedGeneration;
  const notOfThisGeneration =
    observed === undefined
      ? !status?.conditions?.length
      : generation !== undefined && observed < generation;
  const awaitingSource = outcome.targets.map(sourcePendingMessage);
  return notOfThisGeneration && outcome.pending.every(message => awaitingSource.includes(message));
}
