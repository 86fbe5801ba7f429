import { K8s } from "pepr";
import { isDeepStrictEqual } from "node:util";
import { PackageVariantSet } from "../../crd-types";
import { buildStatus, type SetOutcome } from "../../lib/package-variant-set";

export { emptyOutcome, stall } from "../../lib/package-variant-set";
export type { SetOutcome } from "../../lib/package-variant-set";

/** Writes the status only when it changed: an unchanged set produces no write and no event. */
export async function writeStatus(set: PackageVariantSet, outcome: SetOutcome): Promise<void> {
  const status = buildStatus(set, outcome);
  if (isDeepStrictEqual(status, set.status)) return;
  await K8s(PackageVariantSet).PatchStatus({
    metadata: { name: set.metadata?.name, namespace: set.metadata?.namespace },
    status,
  });
}
