import { K8s, PeprValidateRequest } from "pepr";
import { PackageRevision, PackageRevisionResources } from "../../crd-types";
import {
  validatePackageRevision,
  validatePackageRevisionResources,
  repositoryUidProblem,
  workspaceTakenProblem,
} from "../../lib/validation";
import { isControllerFieldManager } from "../../lib/packages/field-managers";
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

/** A new revision may not name a package and workspace another object already has. */
async function workspaceProblems(pr: PackageRevision): Promise<string[]> {
  const spec = pr.spec ?? {};
  const others = await K8s(PackageRevision)
    .InNamespace(pr.metadata?.namespace ?? "")
    .WithField("spec.repository", spec.repository ?? "")
    .WithField("spec.packageName", spec.packageName ?? "")
    .WithField("spec.workspaceName", spec.workspaceName ?? "")
    .Get();
  const problem = workspaceTakenProblem(
    { name: pr.metadata?.name ?? "", ...spec },
    others.items.map(o => ({ name: o.metadata?.name ?? "", ...o.spec })),
  );
  return problem ? [problem] : [];
}

/**
 * Impossible lifecycle moves and changes to a revision's identity are refused when applied,
 * and so is a new revision taking over another object's package and workspace.
 */
export async function validatePackageRevisionRequest(
  req: PeprValidateRequest<PackageRevision>,
): Promise<Response> {
  try {
    // The mirror names objects after what git has and matches existing ones by workspace.
    const mirror = isControllerFieldManager(contextOf(req).fieldManager);
    const taken =
      req.Request.operation === "CREATE" && !mirror ? await workspaceProblems(req.Raw) : [];
    return answer(req, [
      ...validatePackageRevision(
        req.Raw,
        req.OldResource as PackageRevision | undefined,
        contextOf(req),
      ),
      ...taken,
      ...[
        repositoryUidProblem(
          req.Raw.metadata?.annotations,
          (req.OldResource as PackageRevision | undefined)?.metadata?.annotations,
        ),
      ].filter((p): p is string => p !== undefined),
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
