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
import { cluster } from "../shared/cluster";
import { workspaceTakenBy } from "../shared/workspace-owners";
import { answer, requestContext, secretProblems } from "./requests";
import { execPolicy } from "../shared/exec-policy";

type Response = ReturnType<PeprValidateRequest<PackageRevision>["Approve"]>;

/** A new revision copying one that is known to exist and not to be published. */
async function copySourceProblems(req: PeprValidateRequest<PackageRevision>): Promise<string[]> {
  const name = req.Raw.spec?.source?.copyFrom?.name;
  if (req.Request.operation !== "CREATE" || !name) return [];
  const source = await cluster.get(PackageRevisionKind, {
    namespace: req.Raw.metadata?.namespace,
    name,
  });
  if (!source) return []; // not known yet: the source step reports it
  const problem = copySourceProblem(source);
  return problem ? [`spec.source.${problem}`] : [];
}

/** A new revision may not name a package and workspace another object already has. */
async function workspaceProblems(pr: PackageRevision): Promise<string[]> {
  const problem = await workspaceTakenBy(pr);
  return problem ? [problem] : [];
}

/**
 * Impossible lifecycle moves, changes to a revision's identity, a new revision taking over
 * another object's package and workspace, and credentials the requester may not read are
 * refused when applied.
 */
export async function validatePackageRevisionRequest(
  req: PeprValidateRequest<PackageRevision>,
): Promise<Response> {
  try {
    const ctx = await requestContext(req);
    const old = req.OldResource as PackageRevision | undefined;
    const problems = validatePackageRevision(req.Raw, old, ctx);
    const uid = repositoryUidProblem(req.Raw.metadata?.annotations, old?.metadata?.annotations);
    if (uid) problems.push(uid);
    // The source is immutable: its URL is checked once, when the revision is created.
    if (ctx.operation === "CREATE")
      problems.push(...cloneSourceUrlProblems(req.Raw.spec, gitUrlPolicyFromEnv(process.env)));
    if (!ctx.byOperator) {
      // The mirror names objects after what git has and matches existing ones by workspace.
      if (ctx.operation === "CREATE") problems.push(...(await workspaceProblems(req.Raw)));
      problems.push(...(await secretProblems(req, "PackageRevision")));
      problems.push(...(await copySourceProblems(req)));
    }
    return answer(req, problems);
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}

/** The lifecycle of the PackageRevision that owns these files (same name), if it exists. */
async function ownerLifecycle(prr: PackageRevisionResources): Promise<string | undefined> {
  const pr = await cluster.get(PackageRevisionKind, refOf(prr));
  return pr?.spec?.lifecycle;
}

/**
 * Edits of a published revision's files are refused (its PackageRevision says which it is);
 * files with unsafe names or exec functions the administrator did not allow, always.
 */
export async function validateResourcesRequest(
  req: PeprValidateRequest<PackageRevisionResources>,
): Promise<Response> {
  try {
    const old = req.OldResource as PackageRevisionResources | undefined;
    const ctx: AdmissionContext = await requestContext(req);
    const lifecycle = old && !ctx.byOperator ? await ownerLifecycle(req.Raw) : undefined;
    return answer(req, validatePackageRevisionResources(req.Raw, old, lifecycle, ctx, execPolicy));
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}
