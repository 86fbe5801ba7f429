import { isDeepStrictEqual } from "node:util";
import { PackageVariantSet, PackageVariantSetKind } from "../../crd-types";
import { refOf } from "../../lib/cluster/port";
import { buildStatus, type SetOutcome } from "../../lib/package-variant-set";
import type { OperatorContext } from "../context";

export { emptyOutcome, stall } from "../../lib/package-variant-set";
export type { SetOutcome } from "../../lib/package-variant-set";

/** Writes the status only when it changed: an unchanged set produces no write and no event. */
export async function writeStatus(
  ctx: OperatorContext,
  set: PackageVariantSet,
  outcome: SetOutcome,
): Promise<void> {
  const status = buildStatus(set, outcome, ctx.now());
  if (isDeepStrictEqual(status, set.status)) return;
  await ctx.cluster.patch(
    PackageVariantSetKind,
    refOf(set),
    // A merge patch keeps what it does not name: leaving Plan mode must remove status.plan.
    { merge: { status: set.status?.plan && !status.plan ? { ...status, plan: null } : status } },
    { status: true },
  );
}
