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
  // A merge patch keeps what it leaves out: a field gone from the status is written as null.
  const gone = Object.keys(set.status ?? {}).filter(k => !(k in status));
  await ctx.cluster.patch(
    PackageVariantSetKind,
    refOf(set),
    { merge: { status: { ...Object.fromEntries(gone.map(k => [k, null])), ...status } } },
    { status: true },
  );
}
