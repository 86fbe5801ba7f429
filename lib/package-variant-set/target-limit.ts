// How many PackageVariants one set may ask for. A set is a few hundred bytes of YAML and each
// target costs a PackageVariant, a PackageRevision, its resources and a draft to clone, render and
// push, all held in the watcher's caches: without a bound one small set can ask for more than the
// operator can hold (README “Security model”). Admission counts the targets a spec lists; the
// controller counts what the selectors found, and over the limit plans nothing.
import type { PackageVariantSetSpec } from "../../crd-types";
import { countSetting } from "../count-setting";

export const SET_MAX_TARGETS_VARIABLE = "PORCH_PEPR_SET_MAX_TARGETS";

/** The fleet size the operator is measured at (bench, N = 10,000). */
export const DEFAULT_SET_MAX_TARGETS = 10_000;

export interface SetTargetLimit {
  maxTargets: number;
  warnings: string[];
}

/** PORCH_PEPR_SET_MAX_TARGETS: a count from 1 to 1,000,000; otherwise the default, with a warning. */
export function setTargetLimitFromEnv(env: Record<string, string | undefined>): SetTargetLimit {
  const { value, warning } = countSetting(
    env,
    SET_MAX_TARGETS_VARIABLE,
    DEFAULT_SET_MAX_TARGETS,
    1_000_000,
  );
  return { maxTargets: value, warnings: warning ? [warning] : [] };
}

type SetTarget = NonNullable<PackageVariantSetSpec["targets"]>[number];

/** The targets one repository list yields: each repository × its package names (or one). */
export function repositoryListCount(target: SetTarget): number {
  let count = 0;
  for (const repo of target.repositories ?? [])
    count += Math.max(1, repo.packageNames?.length ?? 0);
  return count;
}

/** The targets a spec's repository lists yield. */
export function listedTargetCount(spec: PackageVariantSetSpec | undefined): number {
  let count = 0;
  for (const target of spec?.targets ?? []) count += repositoryListCount(target);
  return count;
}

/**
 * The problem of a set whose targets number more than the limit; undefined within it. `atLeast`
 * when the count stopped at the limit (the controller counts no further than it must).
 */
export function tooManyTargetsProblem(
  count: number,
  maxTargets: number,
  atLeast = false,
): string | undefined {
  return count > maxTargets
    ? `spec.targets yield ${atLeast ? "at least " : ""}${count} PackageVariants, more than ${maxTargets} (${SET_MAX_TARGETS_VARIABLE}); split the set or narrow its selectors`
    : undefined;
}

/** Admission's part: the targets the spec lists by name, over the limit, as a problem. */
export function listedTargetProblems(
  spec: PackageVariantSetSpec | undefined,
  maxTargets: number,
): string[] {
  const problem = tooManyTargetsProblem(listedTargetCount(spec), maxTargets);
  return problem ? [problem] : [];
}
