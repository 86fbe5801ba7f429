import { K8s, PeprValidateRequest } from "pepr";
import { PackageRevision, PackageRevisionResources } from "../../crd-types";
import { gitUrlPolicyFromEnv } from "../../lib/git/url-policy";
import {
  cloneSourceUrlProblems,
  validatePackageRevision,
  validatePackageRevisionResources,
} from "../../lib/validation";
import { errorMessage, isNotFound } from "../shared/api-errors";

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
    // The source is immutable: its URL is checked once, when the revision is created.
    const urlProblems =
      req.Request.operation === "CREATE"
        ? cloneSourceUrlProblems(req.Raw.spec, gitUrlPolicyFromEnv(process.env))
        : [];
    return answer(req, [
      ...validatePackageRevision(
        req.Raw,
        req.OldResource as PackageRevision | undefined,
        contextOf(req),
      ),
      ...urlProblems,
    ]);
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}

/** Edits of a published revision's files are refused; its PackageRevision says which it is. */
export async function validateResourcesRequest(
  req: PeprValidateRequest<PackageRevisionResources>,
): Promise<Response> {
  try {
    const old = req.OldResource as PackageRevisionResources | undefined;
    if (!old) return req.Approve();
    let lifecycle: string | undefined;
    try {
      const pr = await K8s(PackageRevision)
        .InNamespace(req.Raw.metadata?.namespace ?? "")
        .Get(req.Raw.metadata?.name ?? "");
      lifecycle = pr.spec?.lifecycle;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return answer(req, validatePackageRevisionResources(req.Raw, old, lifecycle, contextOf(req)));
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}
