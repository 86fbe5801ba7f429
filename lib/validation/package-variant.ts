import type { PackageVariantSpec } from "../../crd-types";
import type { CatalogView } from "../fn/catalog";
import { DEFAULT_CATALOG_VIEW } from "../fn/runtime";
import {
  ADOPTION_POLICIES,
  annotationProblems,
  DELETION_POLICIES,
  labelProblems,
  packageContextProblems,
  pipelineProblems,
} from "./common";
import { invalid } from "./field";
import { packagePathProblem } from "./kubernetes-names";
import { packageVariantWording as missing, upstreamProblems } from "./upstream";

function downstreamProblems(downstream: PackageVariantSpec["downstream"]): string[] {
  if (!downstream) return [missing("spec.downstream")];
  const problems: string[] = [];
  if (!downstream.repo) problems.push(missing("spec.downstream.repo"));
  if (!downstream.package) problems.push(missing("spec.downstream.package"));
  const pathProblem = downstream.package ? packagePathProblem(downstream.package) : undefined;
  if (pathProblem)
    problems.push(invalid("spec.downstream.package", downstream.package, pathProblem));
  return problems;
}

function policyProblems(spec: PackageVariantSpec): string[] {
  const problems: string[] = [];
  const adoption: readonly string[] = ADOPTION_POLICIES;
  const deletion: readonly string[] = DELETION_POLICIES;
  if (spec.adoptionPolicy && !adoption.includes(spec.adoptionPolicy)) {
    problems.push('spec.adoptionPolicy field can only be "adoptNone" or "adoptExisting"');
  }
  if (spec.deletionPolicy && !deletion.includes(spec.deletionPolicy)) {
    problems.push('spec.deletionPolicy can only be "orphan" or "delete"');
  }
  return problems;
}

function injectorProblems(injectors: PackageVariantSpec["injectors"]): string[] {
  return (injectors ?? []).flatMap((injector, i) =>
    injector.name ? [] : [`spec.injectors[${i}].name must not be empty`],
  );
}

/**
 * Every problem of a PackageVariant spec, each naming its field, in the reference's wording
 * where it has one. Pure: the admission webhook and the controller share it, with the
 * function catalog in use (default: the built-in defaults, which run no exec function).
 */
export function validatePackageVariant(
  spec: PackageVariantSpec | undefined,
  catalog: CatalogView = DEFAULT_CATALOG_VIEW,
): string[] {
  const s = spec ?? {};
  return [
    ...upstreamProblems(s.upstream, "spec.upstream", missing),
    ...downstreamProblems(s.downstream),
    ...policyProblems(s),
    ...labelProblems(s.labels, "spec.labels"),
    ...annotationProblems(s.annotations, "spec.annotations"),
    ...packageContextProblems(s.packageContext, "spec.packageContext"),
    ...pipelineProblems(s.pipeline, "spec.pipeline", catalog),
    ...injectorProblems(s.injectors),
  ];
}
