// A PackageVariant's new draft gets the variant's mutations from its source step, so it is
// rendered and committed once (docs/package-variants.md, “One render per draft”). Which
// variant's mutations: the one the operator named when it created the draft, in an annotation
// admission refuses from anyone else, and only while that variant still controls the draft and
// targets its package. A client cannot choose a variant (and the objects it injects) for its
// own revision.
import type { PackageRevision, PackageVariant } from "../../crd-types";
import { PACKAGE_VARIANT_KIND } from "./ownership";

/** The UID of the PackageVariant whose mutations the draft's source applies. */
export const SOURCE_MUTATIONS_ANNOTATION = "config.porch.kpt.dev/source-mutations";

/** The annotation a variant puts on the drafts it creates. */
export function sourceMutationsMark(pv: PackageVariant): Record<string, string> {
  const uid = pv.metadata?.uid;
  return uid ? { [SOURCE_MUTATIONS_ANNOTATION]: uid } : {};
}

/**
 * The variant (name and UID) the draft's source takes its mutations from: the controller
 * reference when it is a PackageVariant with the annotation's UID; undefined otherwise.
 */
export function sourceMutationsOwner(
  draft: PackageRevision,
): { name: string; uid: string } | undefined {
  const uid = draft.metadata?.annotations?.[SOURCE_MUTATIONS_ANNOTATION];
  if (!uid) return undefined;
  const owner = draft.metadata?.ownerReferences?.find(
    ref => ref.controller === true && ref.kind === PACKAGE_VARIANT_KIND && ref.uid === uid,
  );
  return owner && { name: owner.name, uid };
}

/**
 * Whether `pv` (found by the owner's name) is that variant and still wants the draft's package:
 * a recreated variant (another UID), one being deleted, or one retargeted meanwhile does not
 * mutate it; its own reconcile decides what becomes of the draft.
 */
export function mutatesAtSource(draft: PackageRevision, pv: PackageVariant | undefined): boolean {
  const owner = sourceMutationsOwner(draft);
  const downstream = pv?.spec?.downstream;
  return (
    owner !== undefined &&
    pv?.metadata?.uid === owner.uid &&
    !pv.metadata?.deletionTimestamp &&
    downstream?.repo === draft.spec?.repository &&
    downstream?.package === draft.spec?.packageName
  );
}

/**
 * Admission: only the operator sets the annotation or changes it (a client may drop it: its
 * draft is then mutated by the variant after its source, as any other).
 */
export function sourceMutationsProblem(
  annotations: Record<string, string> | undefined,
  oldAnnotations: Record<string, string> | undefined,
): string | undefined {
  const value = annotations?.[SOURCE_MUTATIONS_ANNOTATION];
  if (value === undefined || value === oldAnnotations?.[SOURCE_MUTATIONS_ANNOTATION])
    return undefined;
  return `metadata.annotations[${SOURCE_MUTATIONS_ANNOTATION}] is set only by the operator, on the drafts its PackageVariants create; it cannot be set or changed`;
}
