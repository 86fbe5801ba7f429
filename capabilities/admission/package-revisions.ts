import { PeprValidateRequest } from "pepr";
import { PackageRevision, PackageRevisionKind, PackageRevisionResources } from "../../crd-types";
import { errorMessage } from "../../lib/errors";
import { gitUrlPolicyFromEnv } from "../../lib/git/url-policy";
import { gitContentLimitsFromEnv } from "../../lib/git/content-limits";
import { renderLimitsFromEnv } from "../../lib/fn/render-limits";
import {
  AdmissionContext,
  approvalProblem,
  cloneSourceUrlProblems,
  repositoryUidProblem,
  validatePackageRevision,
  validatePackageRevisionResources,
} from "../../lib/validation";
import { copySourceProblem, isApprovalMove } from "../../lib/package-revision";
import type { Lifecycle } from "../../lib/git/types";
import { refOf } from "../../lib/cluster/port";
import type { OperatorContext } from "../context";
import { workspaceTakenBy } from "../shared/workspace-owners";
import { recordOf } from "../../lib/packages/approval-record";
import { approvalRecordProblems } from "./approval-record";
import { policyFilesProblems, policyGrantProblems } from "./approval-policy";
import { answer, approvalRight, requestContext, reviewProblems, secretProblems } from "./requests";

type Response = ReturnType<PeprValidateRequest<PackageRevision>["Approve"]>;

/** A new revision copying one that is known to exist and not to be published. */
async function copySourceProblems(
  ctx: OperatorContext,
  req: PeprValidateRequest<PackageRevision>,
): Promise<string[]> {
  const name = req.Raw.spec?.source?.copyFrom?.name;
  if (req.Request.operation !== "CREATE" || !name) return [];
  const source = await ctx.api.get(PackageRevisionKind, {
    namespace: req.Raw.metadata?.namespace,
    name,
  });
  if (!source) return []; // not known yet: the source step reports it
  const problem = copySourceProblem(source);
  return problem ? [`spec.source.${problem}`] : [];
}

/**
 * Approving, rejecting and withdrawing a deletion proposal need the approval right: `update` on
 * `packagerevisions/approval` (RBAC grants it although no API serves the subresource here).
 */
async function approvalProblems(
  ctx: OperatorContext,
  req: PeprValidateRequest<PackageRevision>,
): Promise<string[]> {
  const old = req.OldResource as PackageRevision | undefined;
  if (req.Request.operation !== "UPDATE" || !old) return [];
  const from = (old.spec?.lifecycle ?? "Draft") as Lifecycle;
  const to = (req.Raw.spec?.lifecycle ?? "Draft") as Lifecycle;
  if (!isApprovalMove(from, to)) return [];
  // Taking back one's own proposal is withdrawing it, not rejecting it.
  const proposer = recordOf(old.metadata?.annotations).proposedBy;
  if (to === "Draft" && proposer !== undefined && proposer === req.Request.userInfo?.username)
    return [];
  const namespace = req.Raw.metadata?.namespace ?? "";
  return reviewProblems(ctx, req, [
    {
      field: "spec.lifecycle",
      attributes: approvalRight(namespace, req.Raw.metadata?.name ?? ""),
      denial: () => approvalProblem(from, to, req.Request.userInfo, namespace),
    },
  ]);
}

/** A new revision may not name a package and workspace another object already has. */
async function workspaceProblems(ctx: OperatorContext, pr: PackageRevision): Promise<string[]> {
  const problem = await workspaceTakenBy(ctx, pr);
  return problem ? [problem] : [];
}

/**
 * Impossible lifecycle moves, changes to a revision's identity, a new revision taking over
 * another object's package and workspace, and credentials the requester may not read are
 * refused when applied.
 */
export async function validatePackageRevisionRequest(
  ctx: OperatorContext,
  req: PeprValidateRequest<PackageRevision>,
): Promise<Response> {
  try {
    const admission = await requestContext(ctx, req);
    const old = req.OldResource as PackageRevision | undefined;
    const problems = validatePackageRevision(req.Raw, old, admission);
    problems.push(...(await approvalRecordProblems(ctx, req)));
    problems.push(...(await policyGrantProblems(ctx, req)));
    const uid = repositoryUidProblem(req.Raw.metadata?.annotations, old?.metadata?.annotations);
    if (uid) problems.push(uid);
    // The source is immutable: its URL is checked once, when the revision is created.
    if (admission.operation === "CREATE")
      problems.push(...cloneSourceUrlProblems(req.Raw.spec, gitUrlPolicyFromEnv(process.env)));
    if (!admission.byOperator) {
      // The mirror names objects after what git has and matches existing ones by workspace.
      if (admission.operation === "CREATE")
        problems.push(...(await workspaceProblems(ctx, req.Raw)));
      problems.push(...(await secretProblems(ctx, req, "PackageRevision")));
      problems.push(...(await copySourceProblems(ctx, req)));
      // Only a move the rules above allow is worth asking about.
      if (problems.length === 0) problems.push(...(await approvalProblems(ctx, req)));
    }
    return answer(req, problems);
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}

/** The PackageRevision that owns these files (same name), if it exists. */
function ownerOf(
  ctx: OperatorContext,
  prr: PackageRevisionResources,
): Promise<PackageRevision | undefined> {
  return ctx.api.get(PackageRevisionKind, refOf(prr));
}

/**
 * Edits of a published revision's files are refused (its PackageRevision says which it is);
 * files with unsafe names, over the git content limits or with exec functions the function
 * catalog does not run, always.
 */
export async function validateResourcesRequest(
  ctx: OperatorContext,
  req: PeprValidateRequest<PackageRevisionResources>,
): Promise<Response> {
  try {
    const old = req.OldResource as PackageRevisionResources | undefined;
    const admission: AdmissionContext = await requestContext(ctx, req);
    const owner = old && !admission.byOperator ? await ownerOf(ctx, req.Raw) : undefined;
    const problems = validatePackageRevisionResources(
      req.Raw,
      old,
      owner?.spec?.lifecycle,
      admission,
      ctx.render.catalog.current(),
      // The watcher's settings: both processes get the module's environment.
      gitContentLimitsFromEnv(process.env),
      renderLimitsFromEnv(process.env).limits.maxFunctions,
    );
    if (problems.length === 0) problems.push(...(await policyFilesProblems(ctx, req, owner)));
    return answer(req, problems);
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}
