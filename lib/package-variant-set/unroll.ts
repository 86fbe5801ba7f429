import type { PackageVariantSetSpec } from "../../crd-types";
import { CelObject, TargetKind, toCelObject } from "../cel";
import type { PackageVariantTemplate } from "../validation/template";

export type SetTarget = NonNullable<PackageVariantSetSpec["targets"]>[number];

/**
 * One future PackageVariant, before its template is evaluated (docs/package-variant-sets.md,
 * “Targets”).
 */
export interface TargetContext {
  /** Index in spec.targets: error messages point there. */
  targetIndex: number;
  targetKind: TargetKind;
  repoDefault: string;
  packageDefault: string;
  /** `{repo, package}` for a repository list; the selected object otherwise. */
  target: CelObject | { repo: string; package: string };
  template?: PackageVariantTemplate;
}

/** A repository-list target: each name × packageNames (default: the upstream package). */
export function unrollRepositoryList(
  target: SetTarget,
  targetIndex: number,
  upstreamPackage: string,
): TargetContext[] {
  return (target.repositories ?? []).flatMap(repo => {
    const names = repo.packageNames?.length ? repo.packageNames : [upstreamPackage];
    return names.map(pkg => ({
      targetIndex,
      targetKind: "repositories" as const,
      repoDefault: repo.name,
      packageDefault: pkg,
      target: { repo: repo.name, package: pkg },
      template: target.template as PackageVariantTemplate | undefined,
    }));
  });
}

interface SelectedObject {
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
}

/**
 * A selector target (repositorySelector or objectSelector): each selected object × packageNames;
 * the object's name is the default downstream repository.
 */
export function unrollSelectedObjects(
  objects: SelectedObject[],
  packageNames: string[] | undefined,
  target: SetTarget,
  targetIndex: number,
  upstreamPackage: string,
): TargetContext[] {
  const names = packageNamesOf(packageNames, upstreamPackage);
  return [...objects]
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""))
    .flatMap(object => {
      // One CEL view of the object for all its package names: templates only read it.
      const celObject = toCelObject(object);
      return names.map(pkg => ({
        targetIndex,
        targetKind: "selector" as const,
        repoDefault: object.metadata?.name ?? "",
        packageDefault: pkg,
        target: celObject,
        template: target.template as PackageVariantTemplate | undefined,
      }));
    });
}

/** A selector's package names: those listed, or the upstream package. */
export const packageNamesOf = (packageNames: string[] | undefined, upstreamPackage: string) =>
  packageNames?.length ? packageNames : [upstreamPackage];
