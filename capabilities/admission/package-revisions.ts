import { K8s, PeprValidateRequest } from "pepr";
import { PackageRevision, PackageRevisionResources } from "../../crd-types";
import { validatePackageRevision, validatePackageRevisionResources } from "../../lib/validation";
import { copySourceProblem } from "../../lib/packages/lifecycle";
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

/** A new revision copying one that is known to exist and not to be published. */
async function copySourceProblems(req: PeprValidateRequest<PackageRevision>): Promise<string[]> {
  const name = req.Raw.spec?.source?.copyFrom?.name;
  if (req.Request.operation !== "CREATE" || !name) return [];
  try {
    const source = await K8s(PackageRevision)
      .InNamespace(req.Raw.metadata?.namespace ?? "")
      .Get(name);
    const problem = copySourceProblem(source);
    return problem ? [`spec.source.${problem}`] : [];
  } catch (error) {
    if (isNotFound(error)) return []; // not known yet: the source step reports it
    throw error;
  }
}

/** Impossible lifecycle moves and changes to a revision's identity are refused when applied. */
export async function validatePackageRevisionRequest(
  req: PeprValidateRequest<PackageRevision>,
): Promise<Response> {
  try {
    const problems = validatePackageRevision(
      req.Raw,
      req.OldResource as PackageRevision | undefined,
      contextOf(req),
    );
    return answer(req, [...problems, ...(await copySourceProblems(req))]);
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
