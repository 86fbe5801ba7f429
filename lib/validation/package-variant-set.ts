import type { PackageVariantSetSpec } from "../../crd-types";
import type { TargetKind } from "../cel";
import { rolloutProblems } from "../package-variant-set/rollout-validation";
import { invalid } from "./field";
import { packagePathProblem } from "./kubernetes-names";
import { PackageVariantTemplate, templateProblems } from "./template";
import { packageVariantSetWording as missing, upstreamProblems } from "./upstream";

type Target = NonNullable<PackageVariantSetSpec["targets"]>[number];

function packageNameProblems(names: string[] | undefined, path: string): string[] {
  return (names ?? []).flatMap((name, k) => {
    if (name === "") return [`${path}[${k}] cannot be empty`];
    const problem = packagePathProblem(name);
    return problem ? [invalid(`${path}[${k}]`, name, problem)] : [];
  });
}

function repositoriesProblems(target: Target, path: string): string[] {
  if (target.repositories === undefined) return [];
  if (target.repositories.length === 0)
    return [`${path}.repositories must not be an empty list if specified`];
  return target.repositories.flatMap((repo, j) => [
    ...(repo.name ? [] : [`${path}.repositories[${j}].name cannot be empty`]),
    ...packageNameProblems(repo.packageNames, `${path}.repositories[${j}].packageNames`),
  ]);
}

function selectorProblems(target: Target, path: string): string[] {
  const problems = packageNameProblems(
    target.repositorySelector?.packageNames,
    `${path}.repositorySelector.packageNames`,
  );
  const selector = target.objectSelector;
  if (selector) {
    if (!selector.apiVersion) problems.push(`${path}.objectSelector.apiVersion cannot be empty`);
    if (!selector.kind) problems.push(`${path}.objectSelector.kind cannot be empty`);
    problems.push(
      ...packageNameProblems(selector.packageNames, `${path}.objectSelector.packageNames`),
    );
  }
  return problems;
}

function targetProblems(target: Target, i: number): string[] {
  const path = `spec.targets[${i}]`;
  const selectors = [target.repositories, target.repositorySelector, target.objectSelector].filter(
    s => s !== undefined,
  );
  const problems = [...repositoriesProblems(target, path), ...selectorProblems(target, path)];
  if (selectors.length !== 1) {
    problems.push(
      `${path} must specify one of \`repositories\`, \`repositorySelector\`, or \`objectSelector\``,
    );
  }
  if (!target.template) return problems;
  // `target` is {repo, package} for a repository list and the selected object otherwise.
  const targetKind: TargetKind = target.repositories !== undefined ? "repositories" : "selector";
  const template = target.template as PackageVariantTemplate;
  return [
    ...problems,
    ...templateProblems(template, `${path}.template`, { targetKind, withRepository: true }),
  ];
}

/**
 * Every problem of a PackageVariantSet spec (docs/package-variant-sets.md, “Validation”), CEL
 * expressions included. Pure: the admission webhook and the controller share it.
 */
export function validatePackageVariantSet(spec: PackageVariantSetSpec | undefined): string[] {
  const s = spec ?? {};
  const problems = upstreamProblems(s.upstream, "spec.upstream", missing);
  if (!s.targets || s.targets.length === 0)
    problems.push("must specify at least one item in spec.targets");
  return [...problems, ...(s.targets ?? []).flatMap(targetProblems), ...rolloutProblems(s)];
}
