import type { PackageRevisionSpec } from "../../crd-types";

type Source = PackageRevisionSpec["source"];

/**
 * A revision's source as compared for immutability: a `cloneFrom.git.secretRef` with an empty
 * name names no credentials and counts as absent. Clients built on Porch's Go types (porchctl)
 * write a revision back with `secretRef: {name: ""}` (a struct there, not a pointer) although it
 * was created without one. The CRD's CEL rule on spec.source compares the same way.
 */
export function comparableSource(source: Source): Source {
  const git = source?.cloneFrom?.git;
  if (!git || git.secretRef?.name) return source;
  const withoutSecretRef = { ...git };
  delete withoutSecretRef.secretRef;
  return { ...source, cloneFrom: { ...source.cloneFrom, git: withoutSecretRef } };
}
