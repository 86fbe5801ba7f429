import type { PeprMutateRequest } from "pepr";
import type { PackageRevisionResources } from "../../crd-types";
import { omittedIdentity } from "../../lib/packages/resources-identity";

/**
 * Mutating step: an update that leaves out which revision the files belong to (porchctl rpkg
 * push sends only the files) keeps what the stored object says.
 */
export function keepResourcesIdentity(req: PeprMutateRequest<PackageRevisionResources>): void {
  const old = req.OldResource as PackageRevisionResources | undefined;
  const omitted = old && omittedIdentity(req.Raw, old);
  if (omitted) req.Merge(omitted);
}
