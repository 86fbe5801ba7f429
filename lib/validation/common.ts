import { execDenial, type CatalogView } from "../fn/catalog";
import { DEFAULT_CATALOG_VIEW } from "../fn/runtime";
import { invalid, keysOf } from "./field";
import { labelValueProblem, qualifiedNameProblem } from "./kubernetes-names";
import { APPROVED_BY_ANNOTATION, PROPOSED_BY_ANNOTATION } from "../packages/approval-record";

/** Package-context keys kpt and Porch own: `name` is the package name, `package-path` its path. */
export const RESERVED_CONTEXT_KEYS = ["name", "package-path"] as const;

export function labelProblems(labels: Record<string, string> | undefined, path: string): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem) problems.push(invalid(path, key, keyProblem));
    const valueProblem = labelValueProblem(value);
    if (valueProblem) problems.push(invalid(`${path}[${key}]`, value, valueProblem));
  }
  return problems;
}

/** Annotations only admission writes (who proposed, who approved): a variant may not set them. */
const RECORDED_ANNOTATIONS: readonly string[] = [PROPOSED_BY_ANNOTATION, APPROVED_BY_ANNOTATION];

export function annotationProblems(
  annotations: Record<string, string> | undefined,
  path: string,
): string[] {
  return keysOf(annotations).flatMap(key => {
    const problem = RECORDED_ANNOTATIONS.includes(key)
      ? "is recorded by admission from the authenticated user; it cannot be set"
      : qualifiedNameProblem(key);
    return problem ? [invalid(path, key, problem)] : [];
  });
}

/** Reserved package-context keys, worded as the reference words them. */
export function packageContextProblems(
  context: { data?: Record<string, string>; removeKeys?: string[] } | undefined,
  path: string,
): string[] {
  const problems: string[] = [];
  for (const key of RESERVED_CONTEXT_KEYS) {
    if (context?.data && key in context.data) {
      problems.push(invalid(`${path}.data`, context.data, `must not contain the key "${key}"`));
    }
    if (context?.removeKeys?.includes(key)) {
      problems.push(
        invalid(`${path}.removeKeys`, context.removeKeys, `must not contain the key "${key}"`),
      );
    }
  }
  return problems;
}

export interface KptFunction {
  image?: string;
  exec?: string;
  name?: string;
}

/**
 * A pipeline function needs an image (or a local exec), and its name becomes the third part
 * of `PackageVariant.<pv>.<name>.<index>`, so it may not contain dots.
 */
export function functionProblems(fn: KptFunction, path: string): string[] {
  const problems: string[] = [];
  if (!fn.image && !fn.exec) problems.push(`${path}.image must not be empty`);
  if (fn.image && fn.exec) problems.push(`${path} may specify only one of \`image\` and \`exec\``);
  if (fn.name?.includes(".")) problems.push(`${path}.name must not contain '.'`);
  return problems;
}

/** Functions a pipeline may run: an `exec` only when the administrator's catalog runs it. */
export function pipelineProblems(
  pipeline: { mutators?: KptFunction[]; validators?: KptFunction[] } | undefined,
  path: string,
  catalog: CatalogView = DEFAULT_CATALOG_VIEW,
): string[] {
  const each = (fn: KptFunction, at: string) => {
    const denial = fn.exec && !fn.image ? execDenial(catalog, fn.exec) : undefined;
    return [...functionProblems(fn, at), ...(denial ? [`${at}.exec: ${denial}`] : [])];
  };
  return [
    ...(pipeline?.validators ?? []).flatMap((f, i) => each(f, `${path}.validators[${i}]`)),
    ...(pipeline?.mutators ?? []).flatMap((f, i) => each(f, `${path}.mutators[${i}]`)),
  ];
}

export const ADOPTION_POLICIES = ["adoptNone", "adoptExisting"] as const;
export const DELETION_POLICIES = ["delete", "orphan"] as const;
