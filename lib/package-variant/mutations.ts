// The three PackageVariant mutations in their order (package context, Kptfile pipeline, config
// injection: docs/package-variants.md, “Mutations”) and whether they changed the package, so
// the caller writes only real changes.
import type { PackageVariant } from "../../crd-types";
import { isKrmPath, parseYamlFile } from "../krm/documents";
import { plain, sameValue } from "../krm/nodes";
import type { PackageFiles } from "../kpt/types";
import { planInjection, type InClusterRef } from "./injection-points";
import { injectConfig, type FetchedObjects } from "./injection";
import { applyPackageContext } from "./package-context";
import { applyPipeline } from "./pipeline";

export interface MutationResult {
  files: PackageFiles;
  /** Whether any file was added, removed, or changed as data (not merely as text). */
  changed: boolean;
}

/** The in-cluster objects applyMutations will need for this package (phase 1 of injection). */
export function objectsToFetch(files: PackageFiles, pv: PackageVariant): InClusterRef[] {
  return planInjection(files, pv.spec?.injectors, pv.metadata?.namespace ?? "").fetch;
}

function sameData(a: string, b: string): boolean {
  try {
    return sameValue(
      parseYamlFile(a).docs.map(doc => plain(doc.contents)),
      parseYamlFile(b).docs.map(doc => plain(doc.contents)),
    );
  } catch {
    return false;
  }
}

/**
 * Compares the mutated package with the original: YAML files (the Kptfile included) as data,
 * others as text. A file that is equal keeps its original text, so formatting differences never
 * cause a write (the reference had to special-case the Kptfile for this).
 */
export function comparePackages(before: PackageFiles, after: PackageFiles): MutationResult {
  const files: Record<string, string> = {};
  let changed = Object.keys(before).some(path => !(path in after));
  for (const [path, text] of Object.entries(after)) {
    const old = before[path];
    if (old !== undefined && (old === text || (isKrmPath(path) && sameData(old, text)))) {
      files[path] = old;
    } else {
      files[path] = text;
      changed = true;
    }
  }
  return { files, changed };
}

/** What the mutations need to know of the downstream's Repository. */
export interface DownstreamRepository {
  /** spec.deployment: required injection points gate publishing only there. */
  deployment: boolean;
}

/**
 * Applies spec.packageContext, spec.pipeline and the injectors to a downstream package.
 * `fetched` must hold an outcome for every object objectsToFetch listed for the same files.
 * Throws MutationError (report it as Ready=False; do not write anything).
 */
export function applyMutations(
  files: PackageFiles,
  pv: PackageVariant,
  fetched: FetchedObjects,
  repository: DownstreamRepository,
): MutationResult {
  const spec = pv.spec ?? {};
  const withContext = applyPackageContext(files, spec.packageContext);
  const withPipeline = applyPipeline(withContext, pv.metadata?.name ?? "", spec.pipeline);
  const injected = injectConfig(
    withPipeline,
    spec.injectors,
    pv.metadata?.namespace ?? "",
    fetched,
    repository.deployment,
  );
  return comparePackages(files, injected);
}
