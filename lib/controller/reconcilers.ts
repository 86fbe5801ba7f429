// Which controllers this process runs (Porch's `--reconcilers`): PORCH_PEPR_RECONCILERS, a
// comma-separated list of Porch's reconciler names, `*` or unset for all. A name Porch would
// ignore is refused here: a typo must not leave a cluster silently without a controller.

/** Porch's reconciler names and the controllers (lib/controller/manager.ts) they stand for. */
export const RECONCILERS = {
  repositories: "Repository",
  packagerevisions: "PackageRevision",
  packagevariants: "PackageVariant",
  packagevariantsets: "PackageVariantSet",
} as const;

export type ReconcilerName = keyof typeof RECONCILERS;

export type ReconcilerSelection =
  | { ok: true; controllers: ReadonlySet<string>; names: ReconcilerName[] }
  | { ok: false; error: string };

const isReconciler = (name: string): name is ReconcilerName => Object.hasOwn(RECONCILERS, name);

/** The controllers `value` (the variable's text, undefined when unset) enables. */
export function selectReconcilers(value: string | undefined): ReconcilerSelection {
  const listed = (value ?? "")
    .split(",")
    .map(name => name.trim())
    .filter(Boolean);
  const all = Object.keys(RECONCILERS) as ReconcilerName[];
  const unknown = listed.filter(name => name !== "*" && !isReconciler(name));
  if (unknown.length > 0)
    return {
      ok: false,
      error:
        `PORCH_PEPR_RECONCILERS: unknown reconciler ${unknown.map(n => `"${n}"`).join(", ")}; ` +
        `known: ${all.join(", ")} (or * for all)`,
    };
  const names =
    listed.length === 0 || listed.includes("*") ? all : all.filter(n => listed.includes(n));
  return { ok: true, names, controllers: new Set(names.map(name => RECONCILERS[name])) };
}
