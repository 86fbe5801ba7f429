// Owner references between a PackageVariant and its downstream PackageRevisions, as plain data.
import type { PackageRevision, PackageVariant } from "../../crd-types";

import type { OwnerReference } from "../cluster/port";

export type { OwnerReference };

export const PACKAGE_VARIANT_API_VERSION = "config.porch.kpt.dev/v1alpha1";
export const PACKAGE_VARIANT_KIND = "PackageVariant";

/**
 * The reference to put on revisions this PackageVariant creates or adopts: controller=true,
 * blockOwnerDeletion unset (as the reference does). Objects read from some clients lack
 * apiVersion/kind, so the PackageVariant's own are the fallback.
 */
export function packageVariantOwnerReference(pv: PackageVariant): OwnerReference {
  return {
    apiVersion: pv.apiVersion || PACKAGE_VARIANT_API_VERSION,
    kind: pv.kind || PACKAGE_VARIANT_KIND,
    name: pv.metadata?.name ?? "",
    uid: pv.metadata?.uid ?? "",
    controller: true,
  };
}

export function ownerReferencesOf(pr: PackageRevision): OwnerReference[] {
  return (pr.metadata?.ownerReferences ?? []).map(ref => ({ ...ref }));
}

/** Ownership is by UID, as in the reference: a recreated PackageVariant owns nothing. */
export function isOwnedBy(pr: PackageRevision, uid: string | undefined): boolean {
  return !!uid && ownerReferencesOf(pr).some(ref => ref.uid === uid);
}

/** Another object already controlling `pr`; Kubernetes allows one controller reference. */
export function otherController(
  pr: PackageRevision,
  uid: string | undefined,
): OwnerReference | undefined {
  return ownerReferencesOf(pr).find(ref => ref.controller === true && ref.uid !== uid);
}

export function withoutOwner(pr: PackageRevision, uid: string | undefined): OwnerReference[] {
  return ownerReferencesOf(pr).filter(ref => ref.uid !== uid);
}

/** The PackageVariant finalizer (the reference's name): removed once every owned revision is handled. */
export const PACKAGE_VARIANT_FINALIZER = "config.porch.kpt.dev/packagevariants";
