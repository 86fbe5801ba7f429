// The porch.kpt.dev/v1alpha2 PackageRevision drafts a PackageVariant creates
// (docs/package-variants.md, “Drafts”), as plain objects ready to POST.
import type { PackageRevision, PackageRevisionSpec, PackageVariant } from "../../crd-types";
import { APPROVED_BY_ANNOTATION, PROPOSED_BY_ANNOTATION } from "../packages/approval-record";
import { DELAY_ANNOTATION, GRANT_ANNOTATION, POLICY_ANNOTATION } from "../packages/approval-policy";
import { REPOSITORY_UID_ANNOTATION } from "../packages/deletion";
import { LATEST_REVISION_LABEL } from "../packages/latest-revision";
import { packageVariantOwnerReference } from "./ownership";
import { PACKAGE_VARIANT_LABEL, PACKAGE_VARIANT_NAME_ANNOTATION } from "./variant-label";
import { SOURCE_MUTATIONS_ANNOTATION } from "./source-mutations";
import { packageRevisionObjectName } from "./workspace";

export const PACKAGE_REVISION_API_VERSION = "porch.kpt.dev/v1alpha2";
export const PACKAGE_REVISION_KIND = "PackageRevision";

type Source = NonNullable<PackageRevisionSpec["source"]>;

type StringMap = Record<string, string>;

function copyMap(map: StringMap | undefined): StringMap | undefined {
  return map && Object.keys(map).length > 0 ? { ...map } : undefined;
}

/**
 * What a revision's labels and annotations say about that revision alone, kept by the operator
 * and admission: a new draft gets its own (or none), never its source's.
 */
const NOT_INHERITED = new Set([
  LATEST_REVISION_LABEL,
  // A mirrored revision's label (capabilities/repository/mirror.ts): a draft is not mirrored.
  "porch.kpt.dev/repository",
  PROPOSED_BY_ANNOTATION,
  APPROVED_BY_ANNOTATION,
  REPOSITORY_UID_ANNOTATION,
  PACKAGE_VARIANT_LABEL,
  PACKAGE_VARIANT_NAME_ANNOTATION,
  // Set by createDraft for the variant creating the draft (source-mutations.ts).
  SOURCE_MUTATIONS_ANNOTATION,
  "kubectl.kubernetes.io/last-applied-configuration",
  // An approval policy is the variant's (its spec.annotations), not an earlier revision's: a
  // policy removed from the variant stops with it.
  POLICY_ANNOTATION,
  DELAY_ANNOTATION,
  GRANT_ANNOTATION,
]);

/** `source`'s entries that a draft made from it carries over, then the variant's (winning). */
function inherit(source: StringMap | undefined, own: StringMap | undefined): StringMap {
  const kept = Object.entries(source ?? {}).filter(([key]) => !NOT_INHERITED.has(key));
  return { ...Object.fromEntries(kept), ...own };
}

/**
 * A Draft of `repo`/`packageName` in `workspace`, owned by the PackageVariant (controller) and
 * carrying spec.labels / spec.annotations, in the PackageVariant's namespace. A draft made from
 * a downstream revision (upgrade, edit) also carries that revision's labels and annotations
 * (what people put on the downstream stays on its next revision), the variant's winning.
 */
function draft(
  pv: PackageVariant,
  repo: string,
  packageName: string,
  workspace: string,
  source: Source,
  from?: PackageRevision,
): PackageRevision {
  const labels = copyMap(inherit(from?.metadata?.labels, pv.spec?.labels));
  const annotations = copyMap(inherit(from?.metadata?.annotations, pv.spec?.annotations));
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
  return draft(
    pv,
    current.spec?.repository ?? "",
    current.spec?.packageName ?? "",
    workspace,
    {
      upgrade: {
        oldUpstream: { name: nameOf(oldUpstream) },
        newUpstream: { name: nameOf(newUpstream) },
        currentPackage: { name: nameOf(current) },
        strategy: "resource-merge",
      },
    },
    current,
  );
}

/** MUTATIONS_CHANGED on a published downstream: copy it into a new draft to mutate. */
export function buildEditDraft(
  pv: PackageVariant,
  source: PackageRevision,
  workspace: string,
): PackageRevision {
  return draft(
    pv,
    source.spec?.repository ?? "",
    source.spec?.packageName ?? "",
    workspace,
    {
      copyFrom: { name: nameOf(source) },
    },
    source,
  );
}
