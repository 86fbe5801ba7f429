import type { V1OwnerReference } from "@kubernetes/client-node";
import type { PackageRevisionResources } from "../../crd-types";

/** The label the operator puts on a PackageRevisionResources: its Repository's name. */
export const RESOURCES_REPOSITORY_LABEL = "porch.kpt.dev/repository";

const IDENTITY_FIELDS = ["packageName", "repository", "workspaceName"] as const;

export interface OmittedIdentity {
  spec?: Partial<Record<(typeof IDENTITY_FIELDS)[number], string>>;
  metadata?: { labels?: Record<string, string>; ownerReferences?: V1OwnerReference[] };
}

/**
 * What a whole-object update of a revision's files leaves out that the stored object has: the
 * revision it belongs to (spec identity, repository label, owner reference). `porchctl rpkg
 * push` sends only name, resourceVersion and spec.resources, as Porch derives the rest itself;
 * kept, the files stay owned by their PackageRevision (deleted with it) and listed as its.
 * Undefined when nothing is left out.
 */
export function omittedIdentity(
  prr: PackageRevisionResources,
  old: PackageRevisionResources,
): OmittedIdentity | undefined {
  const spec: NonNullable<OmittedIdentity["spec"]> = {};
  for (const field of IDENTITY_FIELDS) {
    const kept = old.spec?.[field];
    if (prr.spec?.[field] === undefined && kept !== undefined) spec[field] = kept;
  }
  const metadata: NonNullable<OmittedIdentity["metadata"]> = {};
  const label = old.metadata?.labels?.[RESOURCES_REPOSITORY_LABEL];
  if (label !== undefined && prr.metadata?.labels?.[RESOURCES_REPOSITORY_LABEL] === undefined)
    metadata.labels = { [RESOURCES_REPOSITORY_LABEL]: label };
  const owners = old.metadata?.ownerReferences ?? [];
  if (owners.length > 0 && (prr.metadata?.ownerReferences ?? []).length === 0)
    metadata.ownerReferences = owners;
  const omitted: OmittedIdentity = {
    ...(Object.keys(spec).length > 0 && { spec }),
    ...(Object.keys(metadata).length > 0 && { metadata }),
  };
  return Object.keys(omitted).length > 0 ? omitted : undefined;
}
