import { PeprValidateRequest } from "pepr";
import { PackageRevision, PackageRevisionKind, PackageRevisionResources } from "../../crd-types";
import { errorMessage } from "../../lib/errors";
import { gitUrlPolicyFromEnv } from "../../lib/git/url-policy";
import {
  AdmissionContext,
  cloneSourceUrlProblems,
  repositoryUidProblem,
  validatePackageRevision,
  validatePackageRevisionResources,
} from "../../lib/validation";
import { copySourceProblem } from "../../lib/packages/lifecycle";
import { refOf } from "../../lib/cluster/port";
import type { OperatorContext } from "../context";
import { workspaceTakenBy } from "../shared/workspace-owners";
import { answer, requestContext, secretProblems } from "./requests";

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
    }
    return answer(req, problems);
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}

/** The lifecycle of the PackageRevision that owns these files (same name), if it exists. */
async function ownerLifecycle(
  ctx: OperatorContext,
  prr: PackageRevisionResources,
): Promise<string | undefined> {
  const pr = await ctx.api.get(PackageRevisionKind, refOf(prr));
  return pr?.spec?.lifecycle;
}

/**
 * Edits of a published revision's files are refused (its PackageRevision says which it is);
 * files with unsafe names or exec functions the function catalog does not run, always.
 */
export async function validateResourcesRequest(
  ctx: OperatorContext,
  req: PeprValidateRequest<PackageRevisionResources>,
): Promise<Response> {
  try {
    const old = req.OldResource as PackageRevisionResources | undefined;
    const admission: AdmissionContext = await requestContext(ctx, req);
    const lifecycle = old && !admission.byOperator ? await ownerLifecycle(ctx, req.Raw) : undefined;
    return answer(
      req,
      validatePackageRevisionResources(
        req.Raw,
        old,
        lifecycle,
        admission,
        ctx.render.catalog.current(),
      ),
    );
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}
