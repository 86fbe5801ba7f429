import { isDeepStrictEqual } from "node:util";
import { PackageVariantSet, PackageVariantSetKind } from "../../crd-types";
import { refOf } from "../../lib/cluster/port";
import { buildStatus, type SetOutcome } from "../../lib/package-variant-set";
import { cluster } from "../shared/cluster";

export { emptyOutcome, stall } from "../../lib/package-variant-set";
export type { SetOutcome } from "../../lib/package-variant-set";

/** Writes the status only when it changed: an unchanged set produces no write and no event. */
export async function writeStatus(set: PackageVariantSet, outcome: SetOutcome): Promise<void> {
  const status = buildStatus(set, outcome);
  if (isDeepStrictEqual(status, set.status)) return;
  await cluster.patch(PackageVariantSetKind, refOf(set), { merge: { status } }, { status: true });
}
