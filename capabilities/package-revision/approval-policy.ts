import { PackageRevision, PackageRevisionKind, PackageVariantKind } from "../../crd-types";
import { isConflict } from "../../lib/cluster/errors";
import { onlyIfUnchanged, refOf } from "../../lib/cluster/port";
import type { ReconcileResult } from "../../lib/controller/work-queue";
import type { Condition } from "../../lib/kubernetes/conditions";
import { isPublished, type Lifecycle } from "../../lib/git/types";
import {
  POLICY_ANNOTATION,
  decideApproval,
  onBehalfOf,
  type ApprovalDecision,
  type ApprovalPolicyReason,
} from "../../lib/packages/approval-policy";
import { unmetReadinessGates } from "../../lib/package-revision";
import { PACKAGE_VARIANT_KIND } from "../../lib/package-variant/ownership";
import type { OperatorContext } from "../context";
import { applyApprovalPolicyCondition, condition } from "./status";

/**
 * Looks again while the owning PackageVariant is not Ready: its status is not an event of this
 * controller (Nephio's approval controller polls every 15 s for all its waits).
 */
const VARIANT_RECHECK_MS = 5_000;

/** Reasons that need a person: the rest are waits that end by themselves. */
const REFUSALS: readonly ApprovalPolicyReason[] = ["NoGrant", "InvalidPolicy", "PolicyNotMet"];

const trueOnCurrent = (pr: PackageRevision, type: string): boolean => {
  const c = condition(pr, type);
  return c?.status === "True" && c.observedGeneration === pr.metadata?.generation;
};

/** The Ready condition of the PackageVariant controlling `pr`; undefined when none does. */
async function ownerReady(ctx: OperatorContext, pr: PackageRevision): Promise<boolean | undefined> {
  const owner = pr.metadata?.ownerReferences?.find(
    o => o.controller && o.kind === PACKAGE_VARIANT_KIND,
  );
  if (!owner) return undefined;
  const pv = await ctx.cluster.get(PackageVariantKind, {
    namespace: pr.metadata?.namespace,
    name: owner.name,
  });
  if (!pv || pv.metadata?.uid !== owner.uid) return false;
  const ready = (pv.status?.conditions as Condition[] | undefined)?.find(c => c.type === "Ready");
  return ready?.status === "True" && pv.status?.observedGeneration === pv.metadata?.generation;
}

/**
 * Whether the package has a published revision. Before the approving write it is asked of the
 * API server (a cache one event behind could approve a second “initial” revision).
 */
async function publishedExists(
  ctx: OperatorContext,
  pr: PackageRevision,
  fresh: boolean,
): Promise<boolean> {
  const namespace = pr.metadata?.namespace ?? "";
  const siblings = fresh
    ? await ctx.api.list(PackageRevisionKind, {
        namespace,
        fields: {
          "spec.repository": pr.spec?.repository ?? "",
          "spec.packageName": pr.spec?.packageName ?? "",
        },
      })
    : await ctx.caches.revisions.ofPackage(namespace, pr.spec?.repository, pr.spec?.packageName);
  return siblings.some(s => isPublished(s.spec?.lifecycle));
}

/** Writes the condition (and an event) only when it says something new. */
async function report(
  ctx: OperatorContext,
  pr: PackageRevision,
  status: "True" | "False",
  reason: ApprovalPolicyReason,
  message: string,
): Promise<void> {
  const current = condition(pr, "ApprovalPolicy");
  if (
    current?.status === status &&
    current.reason === reason &&
    current.message === message &&
    current.observedGeneration === pr.metadata?.generation
  )
    return;
  await applyApprovalPolicyCondition(ctx, pr, { type: "ApprovalPolicy", status, reason, message });
  const waiting = status === "False" && !REFUSALS.includes(reason);
  await ctx.cluster.event(pr, waiting || status === "True" ? "Normal" : "Warning", reason, message);
}

/**
 * Nephio's approval policy (docs/package-variants.md, “Approval policies”) for a Draft or
 * Proposed revision that git holds as such: one move per reconcile, Draft → Proposed, then
 * Proposed → Published, each an ordinary write of spec.lifecycle that admission and the
 * lifecycle step check as any other (gates included). The write's event brings the next step.
 */
export async function reconcileApprovalPolicy(
  ctx: OperatorContext,
  pr: PackageRevision,
): Promise<ReconcileResult | void> {
  const annotations = pr.metadata?.annotations;
  const lifecycle = (pr.spec?.lifecycle ?? "Draft") as Lifecycle;
  if (annotations?.[POLICY_ANNOTATION] === undefined || isPublished(lifecycle)) return;
  const decision: ApprovalDecision = decideApproval({
    lifecycle,
    annotations,
    createdMs: new Date(pr.metadata?.creationTimestamp ?? ctx.now()).getTime(),
    nowMs: ctx.now().getTime(),
    ready: trueOnCurrent(pr, "Ready") && condition(pr, "Rendered")?.status !== "False",
    unmetGates: unmetReadinessGates({ ...pr.spec, ...pr.status }),
    ownerReady: await ownerReady(ctx, pr),
    publishedExists: await publishedExists(ctx, pr, lifecycle === "Proposed"),
  });
  switch (decision.action) {
    case "none":
      return;
    case "refuse":
      return report(ctx, pr, "False", decision.reason, decision.message);
    case "wait":
      await report(ctx, pr, "False", decision.reason, decision.message);
      if (decision.reason === "VariantNotReady") return { requeueAfterMs: VARIANT_RECHECK_MS };
      return decision.requeueAfterMs ? { requeueAfterMs: decision.requeueAfterMs } : undefined;
    case "propose":
    case "approve": {
      const to = decision.action === "propose" ? "Proposed" : "Published";
      const operator = await ctx.reviews.operatorUsername();
      // On the version judged: a newer one (an edit, a user's move) is judged on its own event.
      const moved = await ctx.cluster
        .patch(PackageRevisionKind, refOf(pr), {
          json: [...onlyIfUnchanged(pr), { op: "replace", path: "/spec/lifecycle", value: to }],
        })
        .catch(error => {
          if (isConflict(error)) return undefined;
          throw error;
        });
      if (!moved) return;
      const policy = annotations[POLICY_ANNOTATION];
      const by = to === "Proposed" ? operator : onBehalfOf(operator, decision.grantor);
      return report(ctx, moved, "True", to, `approval policy "${policy}" met: ${to} by ${by}`);
    }
  }
}
