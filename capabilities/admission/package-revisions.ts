import { K8s, PeprValidateRequest } from "pepr";
import { PackageRevision, PackageRevisionResources } from "../../crd-types";
import {
  AdmissionContext,
  validatePackageRevision,
  validatePackageRevisionResources,
} from "../../lib/validation";
import { errorMessage, isNotFound } from "../shared/api-errors";
import { answer, requestContext, secretProblems } from "./requests";

type Response = ReturnType<PeprValidateRequest<PackageRevision>["Approve"]>;

/**
 * Impossible lifecycle moves, changes to a revision's identity and credentials the requester
 * may not read are refused when applied.
 */
export async function validatePackageRevisionRequest(
  req: PeprValidateRequest<PackageRevision>,
): Promise<Response> {
  try {
    const ctx = await requestContext(req);
    const old = req.OldResource as PackageRevision | undefined;
    const problems = validatePackageRevision(req.Raw, old, ctx);
    if (!ctx.byOperator) problems.push(...(await secretProblems(req, "PackageRevision")));
    return answer(req, problems);
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}

async function ownerLifecycle(prr: PackageRevisionResources): Promise<string | undefined> {
  try {
    const pr = await K8s(PackageRevision)
      .InNamespace(prr.metadata?.namespace ?? "")
      .Get(prr.metadata?.name ?? "");
    return pr.spec?.lifecycle;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Edits of a published revision's files are refused; its PackageRevision says which it is. */
export async function validateResourcesRequest(
  req: PeprValidateRequest<PackageRevisionResources>,
): Promise<Response> {
  try {
    const old = req.OldResource as PackageRevisionResources | undefined;
    if (!old) return req.Approve();
    const ctx: AdmissionContext = await requestContext(req);
    const lifecycle = ctx.byOperator ? undefined : await ownerLifecycle(req.Raw);
    return answer(req, validatePackageRevisionResources(req.Raw, old, lifecycle, ctx));
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}
