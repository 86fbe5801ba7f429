// The PackageVariant state machine (docs/package-variants.md, “State machine”) as one pure
// decision: given the PackageVariant, the selected upstream and the namespace's
// PackageRevisions, what to create, change or check.
import type { PackageRevision, PackageVariant } from "../../crd-types";
import { isPublished } from "../git/types";
import { upstreamNotFoundMessage } from "../packages/upstream";
import { buildCloneDraft, buildEditDraft, buildUpgradeDraft } from "./builders";
import { combineChanges, updateChange, type RevisionChange } from "./changes";
import { discoverDownstreams, publishing } from "./downstreams";
import { findOldUpstream, isUpToDate, lockedUpstream, noUpstreamLockMessage } from "./up-to-date";
import { newWorkspaceName } from "./workspace";

export interface PlanInput {
  pv: PackageVariant;
  /** The revision selectUpstream picked for spec.upstream; undefined when there is none. */
  upstream: PackageRevision | undefined;
  /** Every PackageRevision in the PackageVariant's namespace (upstream and downstream ones). */
  revisions: readonly PackageRevision[];
}

type Named = { downstream: PackageRevision; target: string };

/**
 * One step per downstream (or a clone when there is none). `target` names the revision that
 * stands for the downstream afterwards (status.downstreamTargets).
 */
export type DownstreamStep =
  | { state: "NO_DOWNSTREAM"; kind: "createClone"; create: PackageRevision; target: string }
  | (Named & {
      state: "UPSTREAM_CHANGED";
      kind: "createUpgrade";
      create: PackageRevision;
      oldUpstream: PackageRevision;
      newUpstream: PackageRevision;
    })
  | (Named & {
      state: "UPSTREAM_CHANGED";
      kind: "upgradeInPlace";
      oldUpstream: PackageRevision;
      newUpstream: PackageRevision;
    })
  | (Named & { state: "UPSTREAM_CHANGED"; kind: "error"; message: string })
  | (Named & {
      state: "SOURCE_PENDING";
      kind: "wait";
      message: string;
      /** The source ran and failed: the draft will not get content without a change. */
      failed?: true;
      /** Its git server was down at the last attempt (Ready reason Unavailable): retried. */
      unavailable?: true;
      /**
       * Asked to be published, not numbered yet: a move of the PackageRevision's own, whose
       * content (and this variant's mutations in it) stays as it was, so Ready does not change.
       */
      publishing?: true;
    })
  | CheckMutationsStep;

/**
 * Apply the mutations to `downstream`'s resources, then ask decideMutations. `editDraft` is set
 * when the downstream is published (it cannot be written; changes go to this new draft).
 * `upstreamUnknown` says why the downstream cannot follow its upstream: it has no upstream lock
 * (counted as up to date, as the reference does, but not Ready).
 */
export type CheckMutationsStep = Named & {
  state: "CHECK_MUTATIONS";
  kind: "checkMutations";
  editDraft?: PackageRevision;
  upstreamUnknown?: string;
};

export interface VariantPlan {
  /** The upstream is missing: Stalled=True with this message, nothing else planned. */
  stalled?: string;
  /** Apply first: adoptions, DeletionProposed→Published restores, stale delete-or-orphans. */
  changes: RevisionChange[];
  /** Informational (e.g. a revision not adopted because another object controls it). */
  notes: string[];
  steps: DownstreamStep[];
}

/** The message the reference gives when a stale downstream is not published. */
export function notPublishedMessage(name: string): string {
  return `cannot update upstream of downstream "${name}" when it is not published`;
}

/** A downstream without an upstream lock: its mutations are kept, its upstream not followed. */
export function upstreamUnknownMessage(name: string): string {
  return `${noUpstreamLockMessage(name)}: it is not upgraded (its Kptfile needs upstream and upstreamLock)`;
}

function nameOf(pr: PackageRevision): string {
  return pr.metadata?.name ?? "";
}

/**
 * What Ready says of a draft whose source has not run: the same message right after this
 * variant created it as at every look after, so the status is written once while it waits.
 */
export const sourcePendingMessage = (name: string) =>
  `waiting for PackageRevision "${name}" to be created from its source`;

/** A draft whose spec.source the PackageRevision controller has not executed yet has no content. */
function sourcePending(
  pr: PackageRevision,
): { message: string; failed?: true; unavailable?: true; publishing?: true } | undefined {
  const ready = pr.status?.conditions?.find(c => c.type === "Ready");
  // The PackageRevision controller retries a write its git server did not take; say why.
  const waiting = (message: string) =>
    ready?.status === "False" && ready.reason === "Unavailable"
      ? { message: `${message}: ${ready.message}`, unavailable: true as const }
      : { message };
  if (publishing(pr)) {
    const message = `waiting for PackageRevision "${nameOf(pr)}" to be published`;
    // Refused at this generation (readiness gates unmet, a move not allowed, git's refusal):
    // it stays unpublished until someone changes it, and the variant says so.
    if (
      ready?.status === "False" &&
      ready.observedGeneration === pr.metadata?.generation &&
      ready.reason !== "Unavailable" &&
      ready.reason !== "Pending"
    )
      return { message: `${message}: ${ready.message}`, failed: true };
    return { ...waiting(message), publishing: true };
  }
  if (!pr.spec?.source || pr.status?.creationSource || isPublished(pr.spec?.lifecycle))
    return undefined;
  const message = sourcePendingMessage(nameOf(pr));
  if (ready?.status === "False" && ready.reason === "Failed")
    return { message: `${message}: ${ready.message}`, failed: true };
  return waiting(message);
}

function upstreamChangedStep(
  input: PlanInput & { upstream: PackageRevision },
  downstream: PackageRevision,
  workspace: () => string,
): DownstreamStep {
  const { pv, upstream, revisions } = input;
  const base = { state: "UPSTREAM_CHANGED" as const, downstream, target: nameOf(downstream) };
  // A proposal is under review: changing its content would change what is being approved.
  if (downstream.spec?.lifecycle === "Proposed") {
    return { ...base, kind: "error", message: notPublishedMessage(nameOf(downstream)) };
  }
  const old = findOldUpstream(downstream, pv.spec?.upstream ?? {}, revisions);
  const published = isPublished(downstream.spec?.lifecycle);
  if ("error" in old) {
    const message = published
      ? old.error
      : `${notPublishedMessage(nameOf(downstream))}: ${old.error}`;
    return { ...base, kind: "error", message };
  }
  const merge = { oldUpstream: old.found, newUpstream: upstream };
  if (!published) return { ...base, ...merge, kind: "upgradeInPlace" };
  const create = buildUpgradeDraft(pv, downstream, old.found, upstream, workspace());
  return { ...base, ...merge, kind: "createUpgrade", create, target: nameOf(create) };
}

function stepFor(
  input: PlanInput & { upstream: PackageRevision },
  downstream: PackageRevision,
  workspace: () => string,
): DownstreamStep {
  const target = nameOf(downstream);
  const pending = sourcePending(downstream);
  if (pending) return { state: "SOURCE_PENDING", kind: "wait", downstream, target, ...pending };
  if (!isUpToDate(downstream, input.upstream))
    return upstreamChangedStep(input, downstream, workspace);
  const editDraft = isPublished(downstream.spec?.lifecycle)
    ? buildEditDraft(input.pv, downstream, workspace())
    : undefined;
  const unlocked = lockedUpstream(downstream).kind === "unknown";
  return {
    state: "CHECK_MUTATIONS",
    kind: "checkMutations",
    downstream,
    target,
    ...(editDraft && { editDraft }),
    ...(unlocked && { upstreamUnknown: upstreamUnknownMessage(target) }),
  };
}

/**
 * The state machine (docs/package-variants.md, “State machine”). No downstream: clone.
 * Otherwise, per downstream (all owned Draft/Proposed, else the latest owned published one):
 * - a DeletionProposed downstream is first restored to Published (the reference does this: the
 *   PackageVariant still wants it; a person wanting it gone deletes or retargets the PackageVariant);
 * - a draft whose source has not run yet: wait (its content does not exist yet);
 * - UPSTREAM_CHANGED: published → new upgrade draft; Draft → upgrade in place (three-way merge,
 *   `kpt pkg update` on the draft) when the upstream it was made from is known and still exists;
 *   Proposed, or no known base → error with the reference's message;
 * - else CHECK_MUTATIONS (see decideMutations).
 */
export function planPackageVariant(input: PlanInput): VariantPlan {
  const { pv, upstream, revisions } = input;
  if (!upstream) {
    const selector = pv.spec?.upstream ?? {};
    return { stalled: upstreamNotFoundMessage(selector), changes: [], notes: [], steps: [] };
  }
  const discovery = discoverDownstreams(pv, revisions);
  const { repo = "", package: pkg = "" } = pv.spec?.downstream ?? {};
  // At most one draft is created per reconcile (only from the single published downstream).
  const workspace = () => newWorkspaceName(revisions, repo, pkg);
  const changes = [...discovery.changes];
  const steps: DownstreamStep[] = [];
  for (const found of discovery.downstreams) {
    let downstream = found;
    if (downstream.spec?.lifecycle === "DeletionProposed") {
      changes.push(updateChange(downstream, "restore", { lifecycle: "Published" }));
      downstream = { ...downstream, spec: { ...downstream.spec, lifecycle: "Published" } };
    }
    steps.push(stepFor({ ...input, upstream }, downstream, workspace));
  }
  if (steps.length === 0) {
    const create = buildCloneDraft(pv, upstream, workspace());
    steps.push({ state: "NO_DOWNSTREAM", kind: "createClone", create, target: nameOf(create) });
  }
  return { changes: combineChanges(changes), notes: discovery.notes, steps };
}

export interface MutationDecision {
  state: "MUTATIONS_CHANGED" | "UP_TO_DATE";
  /** Write the mutated resources to this revision (a Draft/Proposed downstream). */
  writeTo?: string;
  /** Create this edit draft (the downstream is published); mutate it once its source ran. */
  createEditDraft?: PackageRevision;
  target: string;
}

/** After applyMutations on a CHECK_MUTATIONS step's downstream: what `changed` means. */
export function decideMutations(step: CheckMutationsStep, changed: boolean): MutationDecision {
  if (!changed) return { state: "UP_TO_DATE", target: step.target };
  if (step.editDraft) {
    return {
      state: "MUTATIONS_CHANGED",
      createEditDraft: step.editDraft,
      target: nameOf(step.editDraft),
    };
  }
  return { state: "MUTATIONS_CHANGED", writeTo: step.target, target: step.target };
}
