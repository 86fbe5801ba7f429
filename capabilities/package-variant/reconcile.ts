import { PackageVariant, PackageVariantKind } from "../../crd-types";
import { errorMessage } from "../../lib/errors";
import type { ReconcileResult } from "../../lib/controller/work-queue";
import {
  DownstreamStep,
  statusWaits,
  InClusterRef,
  MutationError,
  planPackageVariant,
  renderVerdict,
  sourcePendingMessage,
  stepVerdict,
  type RevisionChange,
  type VariantOutcome,
} from "../../lib/package-variant";
import { UpgradeError } from "../../lib/kpt";
import { selectUpstream } from "../../lib/packages/upstream";
import { splitKey } from "../../lib/controller/manager";
import type { OperatorContext } from "../context";
import { SourceError } from "../shared/revision-content";
import { variantSpecProblems } from "../shared/variant-mutations";
import { reconcileFinalizer } from "./finalizer";
import { checkMutations, upgradeInPlace } from "./mutate";
import { applyChange, createDraft, relevantRevisions } from "./revisions";
import { writeVariantStatus } from "./status";

async function getVariant(ctx: OperatorContext, key: string): Promise<PackageVariant | undefined> {
  return ctx.cluster.get(PackageVariantKind, splitKey(key));
}

interface StepResult {
  injected: InClusterRef[];
  /** A draft this step created, which has no content until its source runs. */
  pending?: string;
  /** A draft whose git server was down at its last attempt. */
  unavailable?: string;
  /** A downstream without an upstream lock (its mutations were still applied). */
  upstreamUnknown?: string;
  /** A draft whose render of its current files failed. */
  renderFailed?: string;
  /** A draft whose current files have not been rendered yet. */
  renderPending?: string;
  /** A downstream being published: nothing new to say of it. */
  publishing?: string;
}

/**
 * A variant waiting for its draft's render looks again after this long. The render's end is an
 * event of the PackageRevision, but the files' version it is compared with comes from another
 * watch, which may deliver later: without a second look the variant could stay Pending.
 */
const RENDER_RECHECK_MS = 10_000;

/** Carries out one step of the state machine; returns the injected objects it read. */
async function executeStep(
  ctx: OperatorContext,
  pv: PackageVariant,
  step: DownstreamStep,
): Promise<StepResult> {
  const { failure, pending, unavailable, upstreamUnknown, publishing } = stepVerdict(step);
  if (failure) throw new MutationError(failure);
  const result = await runStep(ctx, pv, step);
  return {
    ...result,
    pending: result.pending ?? pending,
    unavailable,
    upstreamUnknown,
    publishing,
  };
}

async function runStep(
  ctx: OperatorContext,
  pv: PackageVariant,
  step: DownstreamStep,
): Promise<StepResult> {
  switch (step.kind) {
    case "createClone":
    case "createUpgrade":
      // An AlreadyExists (an earlier attempt's draft) announces nothing: it was announced then.
      if (await createDraft(ctx, pv, step.create))
        await ctx.cluster.event(
          pv,
          "Normal",
          step.kind === "createClone" ? "CloneDraftCreated" : "UpgradeDraftCreated",
          `created ${step.target}`,
        );
      return { injected: [] };
    case "upgradeInPlace": {
      const injected = await upgradeInPlace(
        ctx,
        pv,
        step.downstream,
        step.oldUpstream,
        step.newUpstream,
      );
      await ctx.cluster.event(
        pv,
        "Normal",
        "DraftUpgraded",
        `upgraded ${step.target} to ${step.newUpstream.metadata?.name}`,
      );
      // New files: ready once their render is recorded (its event reconciles this variant).
      return { injected, ...renderVerdict(step.downstream, undefined) };
    }
    case "checkMutations": {
      const { decision, injected, created, resourcesVersion } = await checkMutations(ctx, pv, step);
      if (decision.createEditDraft) {
        if (created)
          await ctx.cluster.event(pv, "Normal", "EditDraftCreated", `created ${decision.target}`);
        return { injected, pending: sourcePendingMessage(decision.target) };
      } else if (decision.writeTo)
        await ctx.cluster.event(
          pv,
          "Normal",
          "DraftUpdated",
          `applied mutations to ${decision.target}`,
        );
      return { injected, ...renderVerdict(step.downstream, resourcesVersion) };
    }
    case "error":
    case "wait":
      return { injected: [] };
  }
}

/**
 * Stalled: nothing is planned, but the downstream revisions the variant managed are still there
 * and still its own; status.downstreamTargets keeps naming them.
 */
function writeStalled(ctx: OperatorContext, pv: PackageVariant, stalled: string): Promise<void> {
  const targets = (pv.status?.downstreamTargets ?? []).map(t => t.name ?? "").filter(Boolean);
  return writeVariantStatus(ctx, pv, { stalled, errors: [], pending: [], targets });
}

/** The plan's adoptions, restores and deletions; the failures, each naming its revision. */
async function applyChanges(
  ctx: OperatorContext,
  pv: PackageVariant,
  changes: RevisionChange[],
): Promise<Error[]> {
  const failures: Error[] = [];
  for (const change of changes) {
    try {
      await applyChange(ctx, pv, change);
    } catch (error) {
      const what = `${change.action} of PackageRevision "${change.name}" (${change.reasons.join(", ")})`;
      failures.push(new Error(`${what} failed: ${errorMessage(error)}`, { cause: error }));
    }
  }
  return failures;
}

/**
 * One PackageVariant, level-triggered (docs/package-variants.md, “Reconcile”): finalizer and
 * deletion policy, validation, upstream selection, then the state machine's changes and steps,
 * then the status. Transient failures are thrown after the status is written, so the queue
 * retries with backoff.
 */
export async function reconcilePackageVariant(
  key: string,
  ctx: OperatorContext,
): Promise<ReconcileResult | void> {
  const variants = ctx.caches.variantIndex;
  const pv = await getVariant(ctx, key);
  if (!pv) return variants.remove(key);
  variants.upsert(pv, key);
  if (await reconcileFinalizer(ctx, pv)) return;

  const problems = await variantSpecProblems(ctx, pv);
  if (problems.length > 0) return writeStalled(ctx, pv, problems.join("; "));
  const revisions = await relevantRevisions(ctx, pv);
  const plan = planPackageVariant({
    pv,
    upstream: selectUpstream(revisions, pv.spec?.upstream ?? {}),
    revisions,
  });
  if (plan.stalled) return writeStalled(ctx, pv, plan.stalled);

  const outcome: VariantOutcome = { errors: [], pending: [], targets: [] };
  const injected: InClusterRef[] = [];
  let transient: unknown;
  let recheck = false;
  const changeErrors = await applyChanges(ctx, pv, plan.changes);
  if (changeErrors.length > 0) {
    // The steps were planned on these changes: none runs, and the status says why before the
    // retry (an adoption patch that lost a race, an API error).
    const targets = plan.steps.map(step => step.target);
    await writeVariantStatus(ctx, pv, {
      errors: changeErrors.map(errorMessage),
      pending: [],
      targets,
    });
    throw changeErrors[0].cause ?? changeErrors[0];
  }
  for (const step of plan.steps) {
    outcome.targets.push(step.target);
    try {
      const result = await executeStep(ctx, pv, step);
      injected.push(...result.injected);
      if (result.pending) outcome.pending.push(result.pending);
      if (result.unavailable) (outcome.unavailable ??= []).push(result.unavailable);
      if (result.upstreamUnknown) (outcome.upstreamUnknown ??= []).push(result.upstreamUnknown);
      if (result.publishing) (outcome.publishing ??= []).push(result.publishing);
      if (result.renderFailed) (outcome.renderFailed ??= []).push(result.renderFailed);
      if (result.renderPending) {
        outcome.pending.push(result.renderPending);
        recheck = true;
      }
    } catch (error) {
      outcome.errors.push(errorMessage(error));
      if (
        !(
          error instanceof MutationError ||
          error instanceof SourceError ||
          error instanceof UpgradeError
        )
      ) {
        transient = error;
      }
    }
  }
  variants.setInjected(key, injected);
  // A new or changed variant's news is its draft made, not that it waits for the draft's source;
  // a publish in flight is no news at all.
  if (!statusWaits(pv.status, pv.metadata?.generation, outcome))
    await writeVariantStatus(ctx, pv, outcome);
  if (transient) throw transient;
  if (recheck) return { requeueAfterMs: RENDER_RECHECK_MS };
}
