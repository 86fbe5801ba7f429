import { checkTemplateExpression, ExpressionScope } from "../cel";
import {
  ADOPTION_POLICIES,
  annotationProblems,
  DELETION_POLICIES,
  functionProblems,
  KptFunction,
  labelProblems,
  packageContextProblems,
} from "./common";
import { invalid } from "./field";
import { packagePathProblem } from "./kubernetes-names";

/** Structural view of the PackageVariantSet template (the generated types name each copy). */
export interface MapExpr {
  key?: string;
  keyExpr?: string;
  value?: string;
  valueExpr?: string;
}

export interface FunctionTemplate extends KptFunction {
  configMap?: Record<string, string>;
  configMapExprs?: MapExpr[];
}

export interface PackageVariantTemplate {
  downstream?: { repo?: string; package?: string; repoExpr?: string; packageExpr?: string };
  adoptionPolicy?: string;
  deletionPolicy?: string;
  labels?: Record<string, string>;
  labelExprs?: MapExpr[];
  annotations?: Record<string, string>;
  annotationExprs?: MapExpr[];
  packageContext?: {
    data?: Record<string, string>;
    removeKeys?: string[];
    dataExprs?: MapExpr[];
    removeKeyExprs?: string[];
  };
  pipeline?: { validators?: FunctionTemplate[]; mutators?: FunctionTemplate[] };
  injectors?: {
    group?: string;
    version?: string;
    kind?: string;
    name?: string;
    nameExpr?: string;
  }[];
}

function celProblems(
  expression: string | undefined,
  path: string,
  scope: ExpressionScope,
): string[] {
  if (expression === undefined) return [];
  const problem = checkTemplateExpression(expression, scope);
  return problem ? [`${path}: ${problem}`] : [];
}

function mapExprProblems(
  entries: MapExpr[] | undefined,
  path: string,
  scope: ExpressionScope,
): string[] {
  return (entries ?? []).flatMap((e, j) => {
    const at = `${path}[${j}]`;
    const problems: string[] = [];
    if (e.key !== undefined && e.keyExpr !== undefined)
      problems.push(`${at} may specify only one of \`key\` and \`keyExpr\``);
    if (e.key === undefined && e.keyExpr === undefined)
      problems.push(`${at} must specify either \`key\` or \`keyExpr\``);
    if (e.value !== undefined && e.valueExpr !== undefined)
      problems.push(`${at} may specify only one of \`value\` and \`valueExpr\``);
    if (e.value === undefined && e.valueExpr === undefined)
      problems.push(`${at} must specify either \`value\` or \`valueExpr\``);
    return [
      ...problems,
      ...celProblems(e.keyExpr, `${at}.keyExpr`, scope),
      ...celProblems(e.valueExpr, `${at}.valueExpr`, scope),
    ];
  });
}

function downstreamProblems(
  t: PackageVariantTemplate,
  path: string,
  scope: ExpressionScope,
): string[] {
  const d = t.downstream;
  if (!d) return [];
  const problems: string[] = [];
  if (d.repo !== undefined && d.repoExpr !== undefined) {
    problems.push(
      `${path} may specify only one of \`downstream.repo\` and \`downstream.repoExpr\``,
    );
  }
  if (d.package !== undefined && d.packageExpr !== undefined) {
    problems.push(
      `${path} may specify only one of \`downstream.package\` and \`downstream.packageExpr\``,
    );
  }
  const pathProblem = d.package ? packagePathProblem(d.package) : undefined;
  if (pathProblem) problems.push(invalid(`${path}.downstream.package`, d.package, pathProblem));
  // The downstream Repository is loaded from repoExpr's result, so it cannot be an input to it.
  const beforeRepository = { ...scope, withRepository: false };
  return [
    ...problems,
    ...celProblems(d.repoExpr, `${path}.downstream.repoExpr`, beforeRepository),
    ...celProblems(d.packageExpr, `${path}.downstream.packageExpr`, scope),
  ];
}

function policyProblems(t: PackageVariantTemplate, path: string): string[] {
  const adoption: readonly string[] = ADOPTION_POLICIES;
  const deletion: readonly string[] = DELETION_POLICIES;
  const problems: string[] = [];
  if (t.adoptionPolicy && !adoption.includes(t.adoptionPolicy)) {
    problems.push(`${path}.adoptionPolicy can only be "adoptNone" or "adoptExisting"`);
  }
  if (t.deletionPolicy && !deletion.includes(t.deletionPolicy)) {
    problems.push(`${path}.deletionPolicy can only be "orphan" or "delete"`);
  }
  return problems;
}

function injectorProblems(
  t: PackageVariantTemplate,
  path: string,
  scope: ExpressionScope,
): string[] {
  return (t.injectors ?? []).flatMap((inj, i) => {
    const at = `${path}.injectors[${i}]`;
    if (inj.name !== undefined && inj.nameExpr !== undefined)
      return [`${at} may specify only one of \`name\` and \`nameExpr\``];
    if (!inj.name && inj.nameExpr === undefined)
      return [`${at} must specify either \`name\` or \`nameExpr\``];
    return celProblems(inj.nameExpr, `${at}.nameExpr`, scope);
  });
}

function pipelineProblems(
  t: PackageVariantTemplate,
  path: string,
  scope: ExpressionScope,
): string[] {
  const each = (fns: FunctionTemplate[] | undefined, list: string) =>
    (fns ?? []).flatMap((f, i) => [
      ...functionProblems(f, `${path}.pipeline.${list}[${i}]`),
      ...mapExprProblems(f.configMapExprs, `${path}.pipeline.${list}[${i}].configMapExprs`, scope),
    ]);
  return [...each(t.pipeline?.validators, "validators"), ...each(t.pipeline?.mutators, "mutators")];
}

function packageContextTemplateProblems(
  t: PackageVariantTemplate,
  path: string,
  scope: ExpressionScope,
): string[] {
  const ctx = t.packageContext;
  return [
    ...packageContextProblems(ctx, `${path}.packageContext`),
    ...mapExprProblems(ctx?.dataExprs, `${path}.packageContext.dataExprs`, scope),
    ...(ctx?.removeKeyExprs ?? []).flatMap((e, i) =>
      celProblems(e, `${path}.packageContext.removeKeyExprs[${i}]`, scope),
    ),
  ];
}

/** Every problem of one target's template, CEL expressions parsed and type-checked included. */
export function templateProblems(
  t: PackageVariantTemplate,
  path: string,
  scope: ExpressionScope,
): string[] {
  return [
    ...policyProblems(t, path),
    ...downstreamProblems(t, path, scope),
    ...labelProblems(t.labels, `${path}.labels`),
    ...mapExprProblems(t.labelExprs, `${path}.labelExprs`, scope),
    ...annotationProblems(t.annotations, `${path}.annotations`),
    ...mapExprProblems(t.annotationExprs, `${path}.annotationExprs`, scope),
    ...packageContextTemplateProblems(t, path, scope),
    ...injectorProblems(t, path, scope),
    ...pipelineProblems(t, path, scope),
  ];
}
