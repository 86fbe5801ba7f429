// The porch.kpt.dev/v1alpha2 PackageRevision drafts a PackageVariant creates
// (docs/package-variants.md, “Drafts”), as plain objects ready to POST.
import type { PackageRevision, PackageRevisionSpec, PackageVariant } from "../../crd-types";
import { packageVariantOwnerReference } from "./ownership";
import { packageRevisionObjectName } from "./workspace";

export const PACKAGE_REVISION_API_VERSION = "porch.kpt.dev/v1alpha2";
export const PACKAGE_REVISION_KIND = "PackageRevision";

type Source = NonNullable<PackageRevisionSpec["source"]>;

function copyMap(map: Record<string, string> | undefined): Record<string, string> | undefined {
  return map && Object.keys(map).length > 0 ? { ...map } : undefined;
}

/**
 * A Draft of `repo`/`packageName` in `workspace`, owned by the PackageVariant (controller) and
 * carrying spec.labels / spec.annotations, in the PackageVariant's namespace.
 */
function draft(
  pv: PackageVariant,
  repo: string,
  packageName: string,
  workspace: string,
  source: Source,
): PackageRevision {
  const labels = copyMap(pv.spec?.labels);
  const annotations = copyMap(pv.spec?.annotations);
  return {
    apiVersion: PACKAGE_REVISION_API_VERSION,
    kind: PACKAGE_REVISION_KIND,
    metadata: {
      name: packageRevisionObjectName(repo, packageName, workspace),
      namespace: pv.metadata?.namespace,
      ownerReferences: [packageVariantOwnerReference(pv)],
      ...(labels && { labels }),
      ...(annotations && { annotations }),
    },
    spec: {
      packageName,
      repository: repo,
      workspaceName: workspace,
      lifecycle: "Draft",
      source,
    },
  };
}

function nameOf(pr: PackageRevision): string {
  return pr.metadata?.name ?? "";
}

/** NO_DOWNSTREAM: clone the selected upstream into spec.downstream. */
export function buildCloneDraft(
  pv: PackageVariant,
  upstream: PackageRevision,
  workspace: string,
): PackageRevision {
  const { repo = "", package: pkg = "" } = pv.spec?.downstream ?? {};
  return draft(pv, repo, pkg, workspace, {
    cloneFrom: { upstreamRef: { name: nameOf(upstream) } },
  });
}

/** UPSTREAM_CHANGED on a published downstream: three-way merge into a new draft. */
export function buildUpgradeDraft(
  pv: PackageVariant,
  current: PackageRevision,
  oldUpstream: PackageRevision,
  newUpstream: PackageRevision,
  workspace: string,
): PackageRevision {
  return draft(pv, current.spec?.repository ?? "", current.spec?.packageName ?? "", workspace, {
    upgrade: {
      oldUpstream: { name: nameOf(oldUpstream) },
      newUpstream: { name: nameOf(newUpstream) },
      currentPackage: { name: nameOf(current) },
      strategy: "resource-merge",
    },
  });
}

/** MUTATIONS_CHANGED on a published downstream: copy it into a new draft to mutate. */
export function buildEditDraft(
  pv: PackageVariant,
  source: PackageRevision,
  workspace: string,
): PackageRevision {
  return draft(pv, source.spec?.repository ?? "", source.spec?.packageName ?? "", workspace, {
    copyFrom: { name: nameOf(source) },
  });
}
