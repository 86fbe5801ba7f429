import { K8s } from "pepr";
import { PackageRevision } from "../../crd-types";
import { workspaceTakenProblem } from "../../lib/validation";

/**
 * Why `pr` may not have its package and workspace: another PackageRevision has them (admission
 * and the source step ask the same question). A LIST by the three selectable fields.
 */
export async function workspaceTakenBy(pr: PackageRevision): Promise<string | undefined> {
  const spec = pr.spec ?? {};
  const others = await K8s(PackageRevision)
    .InNamespace(pr.metadata?.namespace ?? "")
    .WithField("spec.repository", spec.repository ?? "")
    .WithField("spec.packageName", spec.packageName ?? "")
    .WithField("spec.workspaceName", spec.workspaceName ?? "")
    .Get();
  return workspaceTakenProblem(
    { name: pr.metadata?.name ?? "", ...spec },
    others.items.map(o => ({ name: o.metadata?.name ?? "", ...o.spec })),
  );
}
