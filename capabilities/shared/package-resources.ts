import {
  PackageRevision,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
} from "../../crd-types";
import type { OperatorContext } from "../context";
import { RESOURCES_REPOSITORY_LABEL } from "../../lib/packages/resources-identity";

export const ownerOf = (o: {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; uid?: string };
}) => ({
  apiVersion: o.apiVersion ?? "",
  kind: o.kind ?? "",
  name: o.metadata?.name ?? "",
  uid: o.metadata?.uid ?? "",
});

/**
 * Writes the files of a PackageRevision into its PackageRevisionResources (same name, owned by
 * it). `resourceVersion`, when given, makes the write fail with 409 if someone edited the
 * files meanwhile: a render of stale content never overwrites a newer edit.
 */
export async function writeResources(
  ctx: OperatorContext,
  pr: PackageRevision,
  files: Record<string, string>,
  fieldManager: string,
  resourceVersion?: string,
): Promise<PackageRevisionResources> {
  return ctx.cluster.apply(
    PackageRevisionResourcesKind,
    {
      metadata: {
        name: pr.metadata?.name ?? "",
        namespace: pr.metadata?.namespace,
        ...(resourceVersion && { resourceVersion }),
        labels: { [RESOURCES_REPOSITORY_LABEL]: pr.spec?.repository ?? "" },
        ownerReferences: [{ ...ownerOf(pr), controller: true }],
      },
      spec: {
        packageName: pr.spec?.packageName,
        repository: pr.spec?.repository,
        workspaceName: pr.spec?.workspaceName,
        resources: files,
      },
    },
    fieldManager,
  );
}
