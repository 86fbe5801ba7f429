import { PeprMutateRequest, PeprValidateRequest } from "pepr";
import { PackageRevision } from "../../crd-types";
import { NamespaceKind } from "../../lib/cluster/kinds";
import type { ApprovalRecord, Lifecycle } from "../../lib/git/types";
import {
  APPROVED_BY_ANNOTATION,
  PROPOSED_BY_ANNOTATION,
  recordAfter,
  recordOf,
  recordProblems,
  selfApprovalForbidden,
  selfApprovalProblem,
} from "../../lib/packages/approval-record";
import { policyGrantor } from "../../lib/packages/approval-policy";
import { errorMessage } from "../../lib/errors";
import type { OperatorContext } from "../context";
import { requestContext } from "./requests";

type Request = PeprMutateRequest<PackageRevision> | PeprValidateRequest<PackageRevision>;

/** The record this request must leave (see lib/packages/approval-record.ts). */
async function wantedRecord(ctx: OperatorContext, req: Request): Promise<ApprovalRecord> {
  const old = req.OldResource as PackageRevision | undefined;
  const { byOperator } = await requestContext(ctx, req);
  return recordAfter(
    old ? ((old.spec?.lifecycle ?? "Draft") as Lifecycle) : undefined,
    (req.Raw.spec?.lifecycle ?? "Draft") as Lifecycle,
    req.Request.userInfo?.username,
    byOperator,
    old?.metadata?.annotations,
    policyGrantor(old?.metadata?.annotations),
  );
}

/**
 * Mutating step: writes who proposed and who approved from the authenticated user, and puts
 * back any value a client set. Never throws (the module rejects on error): a failure leaves the
 * annotations as sent, and the validating step refuses them if they are not what it wants.
 */
export async function stampApprovalRecord(
  ctx: OperatorContext,
  req: PeprMutateRequest<PackageRevision>,
): Promise<void> {
  try {
    const wanted = await wantedRecord(ctx, req);
    for (const [key, value] of [
      [PROPOSED_BY_ANNOTATION, wanted.proposedBy],
      [APPROVED_BY_ANNOTATION, wanted.approvedBy],
    ] as const) {
      if (value) req.SetAnnotation(key, value);
      else if (req.HasAnnotation(key)) req.RemoveAnnotation(key);
    }
  } catch (error) {
    ctx.log.warn(`approval record not stamped: ${errorMessage(error)}`);
  }
}

/**
 * Validating step: the annotations must be exactly what the mutating step writes (another
 * mutating webhook, or one that did not run, cannot make them say something else); with the
 * self-approval policy on, the proposer may not approve.
 */
export async function approvalRecordProblems(
  ctx: OperatorContext,
  req: PeprValidateRequest<PackageRevision>,
): Promise<string[]> {
  const wanted = await wantedRecord(ctx, req);
  const problems = recordProblems(wanted, req.Raw.metadata?.annotations);
  const old = req.OldResource as PackageRevision | undefined;
  const proposer = recordOf(old?.metadata?.annotations).proposedBy;
  const approver = wanted.approvedBy;
  if (
    proposer &&
    approver === proposer &&
    approver !== recordOf(old?.metadata?.annotations).approvedBy
  ) {
    const namespace = req.Raw.metadata?.namespace ?? "";
    const ns = await ctx.cluster.get(NamespaceKind, { name: namespace });
    if (selfApprovalForbidden(process.env, ns?.metadata?.labels))
      problems.push(selfApprovalProblem(approver, namespace));
  }
  return problems;
}
