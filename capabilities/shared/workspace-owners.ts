import { PackageRevision, PackageRevisionKind } from "../../crd-types";
import { workspaceTakenProblem } from "../../lib/validation";
import type { OperatorContext } from "../context";

/**
 * Why `pr` may not have its package and workspace: another PackageRevision has them (admission
 * and the source step ask the same question). A LIST by the three selectable fields.
 */
export async function workspaceTakenBy(
  ctx: OperatorContext,
  pr: PackageRevision,
): Promise<string | undefined> {
  const spec = pr.spec ?? {};
  const others = await ctx.cluster.list(PackageRevisionKind, {
    namespace: pr.metadata?.namespace,
    fields: {
      "spec.repository": spec.repository ?? "",
      "spec.packageName": spec.packageName ?? "",
      "spec.workspaceName": spec.workspaceName ?? "",
    },
  });
  return workspaceTakenProblem(
    { name: pr.metadata?.name ?? "", ...spec },
    others.map(o => ({ name: o.metadata?.name ?? "", ...o.spec })),
  );
}
