import { K8s, PeprValidateRequest } from "pepr";
import { PackageRevision, PackageRevisionResources } from "../../crd-types";
import { validatePackageRevision, validatePackageRevisionResources } from "../../lib/validation";
import { errorMessage, isNotFound } from "../shared/api-errors";
import { execPolicy } from "../shared/exec-policy";

type Response = ReturnType<PeprValidateRequest<PackageRevision>["Approve"]>;

const contextOf = <T extends PackageRevision | PackageRevisionResources>(
  req: PeprValidateRequest<T>,
) => ({
  operation: req.Request.operation,
  fieldManager: (req.Request.options as { fieldManager?: string } | undefined)?.fieldManager,
});

function answer<T extends PackageRevision | PackageRevisionResources>(
  req: PeprValidateRequest<T>,
  problems: string[],
) {
  return problems.length === 0 ? req.Approve() : req.Deny(problems.join("; "));
}

/** Impossible lifecycle moves and changes to a revision's identity are refused when applied. */
export function validatePackageRevisionRequest(
  req: PeprValidateRequest<PackageRevision>,
): Response {
  try {
    return answer(
      req,
      validatePackageRevision(
        req.Raw,
        req.OldResource as PackageRevision | undefined,
        contextOf(req),
      ),
    );
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}

/** The lifecycle of the PackageRevision that owns these files (same name), if it exists. */
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

/**
 * Edits of a published revision's files are refused (its PackageRevision says which it is);
 * files with unsafe names or exec functions the administrator did not allow, always.
 */
export async function validateResourcesRequest(
  req: PeprValidateRequest<PackageRevisionResources>,
): Promise<Response> {
  try {
    const old = req.OldResource as PackageRevisionResources | undefined;
    const lifecycle = old ? await ownerLifecycle(req.Raw) : undefined;
    return answer(
      req,
      validatePackageRevisionResources(req.Raw, old, lifecycle, contextOf(req), execPolicy),
    );
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}
