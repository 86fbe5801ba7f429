import { withStampedGrant } from "../packages/approval-policy";
import type { PackageVariantSpec } from "../../crd-types";
import {
  CelCostBudget,
  CelObject,
  evaluateTemplateExpression,
  ExpressionScope,
  TemplateInputs,
} from "../cel";
import type { FunctionTemplate, MapExpr, PackageVariantTemplate } from "../validation/template";
import type { TargetContext } from "./unroll";

/** A template that cannot be turned into a PackageVariant for one target. */
export class TemplateError extends Error {}

/** The target's downstream Repository does not exist (named, for the status and the watch). */
export class MissingRepositoryError extends TemplateError {
  constructor(
    message: string,
    readonly repository: string,
  ) {
    super(message);
  }
}

export interface RenderInputs {
  /** The set's spec.upstream, copied into every PackageVariant. */
  upstream: NonNullable<PackageVariantSpec["upstream"]>;
  /** The upstream PackageRevision as CEL sees it. */
  upstreamObject: CelObject;
  /** Repositories of the set's namespace by name (the downstream one is looked up here). */
  repositories: ReadonlyMap<string, CelObject>;
  /** The set's CEL cost budget, shared by all its targets (a fresh one per target if absent). */
  budget?: CelCostBudget;
}

type Function = NonNullable<NonNullable<PackageVariantSpec["pipeline"]>["mutators"]>[number];

/** Evaluates one expression; a failure names the template field it came from. */
function evaluator(
  ctx: TargetContext,
  inputs: TemplateInputs,
  scope: ExpressionScope,
  path: string,
  budget: CelCostBudget,
) {
  return (expression: string, field: string): string => {
    try {
      return evaluateTemplateExpression(expression, scope, inputs, budget);
    } catch (error) {
      throw new TemplateError(`${path}.${field}: ${(error as Error).message}`);
    }
  };
}

type Evaluate = ReturnType<typeof evaluator>;

/**
 * A field's expression, when given, wins over its static value; else `fallback`
 * (docs/package-variant-sets.md, “Static values and expressions”).
 */
function exprOr(
  evaluate: Evaluate,
  expr: string | undefined,
  value: string | undefined,
  fallback: string,
  field: string,
): string {
  return expr !== undefined ? evaluate(expr, field) : (value ?? fallback);
}

/**
 * Static entries first, then each MapExpr overlaid; an empty result is omitted
 * (docs/package-variant-sets.md, “Static values and expressions”).
 */
function overlay(
  statics: Record<string, string> | undefined,
  exprs: MapExpr[] | undefined,
  evaluate: Evaluate,
  field: string,
): Record<string, string> | undefined {
  const result: Record<string, string> = { ...(statics ?? {}) };
  (exprs ?? []).forEach((e, i) => {
    const key = exprOr(evaluate, e.keyExpr, e.key, "", `${field}[${i}].keyExpr`);
    result[key] = exprOr(evaluate, e.valueExpr, e.value, "", `${field}[${i}].valueExpr`);
  });
  return Object.keys(result).length > 0 ? result : undefined;
}

function renderFunctions(
  fns: FunctionTemplate[] | undefined,
  evaluate: Evaluate,
  field: string,
): Function[] | undefined {
  if (!fns?.length) return undefined;
  return fns.map((fn, i) => {
    const { configMapExprs, ...plain } = fn as FunctionTemplate & Function;
    const configMap = overlay(
      plain.configMap,
      configMapExprs,
      evaluate,
      `${field}[${i}].configMapExprs`,
    );
    const out: Function = { ...plain };
    delete out.configMap;
    return configMap ? { ...out, configMap } : out;
  });
}

/**
 * Turns one target context into a PackageVariant spec (docs/package-variant-sets.md,
 * “Evaluation order”): the base inputs, downstream.repoExpr, then the downstream Repository is
 * loaded (a missing one fails the target) and every other expression is evaluated. Static
 * values first; expression results override them.
 */
export function renderPackageVariantSpec(
  ctx: TargetContext,
  inputs: RenderInputs,
): PackageVariantSpec {
  const t: PackageVariantTemplate = ctx.template ?? {};
  const path = `spec.targets[${ctx.targetIndex}].template`;
  const budget = inputs.budget ?? new CelCostBudget();
  const base: TemplateInputs = {
    repoDefault: ctx.repoDefault,
    packageDefault: ctx.packageDefault,
    upstream: inputs.upstreamObject,
    target: ctx.target,
  };
  const beforeRepo = evaluator(
    ctx,
    base,
    { targetKind: ctx.targetKind, withRepository: false },
    path,
    budget,
  );
  const d = t.downstream;
  const repo = exprOr(beforeRepo, d?.repoExpr, d?.repo, ctx.repoDefault, "downstream.repoExpr");

  // A PackageVariant into a missing repository could never produce its draft: stop the target.
  const repository = inputs.repositories.get(repo);
  if (!repository)
    throw new MissingRepositoryError(
      `spec.targets[${ctx.targetIndex}]: downstream repository "${repo}" not found`,
      repo,
    );
  const full: TemplateInputs = { ...base, repository };
  const evaluate = evaluator(
    ctx,
    full,
    { targetKind: ctx.targetKind, withRepository: true },
    path,
    budget,
  );

  const pkg = exprOr(
    evaluate,
    d?.packageExpr,
    d?.package,
    ctx.packageDefault,
    "downstream.packageExpr",
  );
  const spec: PackageVariantSpec = {
    upstream: { ...inputs.upstream },
    downstream: { repo, package: pkg },
  };
  if (t.adoptionPolicy)
    spec.adoptionPolicy = t.adoptionPolicy as PackageVariantSpec["adoptionPolicy"];
  if (t.deletionPolicy)
    spec.deletionPolicy = t.deletionPolicy as PackageVariantSpec["deletionPolicy"];
  const labels = overlay(t.labels, t.labelExprs, evaluate, "labelExprs");
  if (labels) spec.labels = labels;
  const annotations = overlay(t.annotations, t.annotationExprs, evaluate, "annotationExprs");
  if (annotations) spec.annotations = withStampedGrant(annotations, t.annotations);

  const data = overlay(
    t.packageContext?.data,
    t.packageContext?.dataExprs,
    evaluate,
    "packageContext.dataExprs",
  );
  const removeKeys = [
    ...(t.packageContext?.removeKeys ?? []),
    ...(t.packageContext?.removeKeyExprs ?? []).map((e, i) =>
      evaluate(e, `packageContext.removeKeyExprs[${i}]`),
    ),
  ];
  if (data || removeKeys.length) {
    spec.packageContext = {};
    if (data) spec.packageContext.data = data;
    if (removeKeys.length) spec.packageContext.removeKeys = [...new Set(removeKeys)].sort();
  }

  const mutators = renderFunctions(t.pipeline?.mutators, evaluate, "pipeline.mutators");
  const validators = renderFunctions(t.pipeline?.validators, evaluate, "pipeline.validators");
  if (mutators || validators) {
    spec.pipeline = {};
    if (validators) spec.pipeline.validators = validators;
    if (mutators) spec.pipeline.mutators = mutators;
  }

  if (t.injectors?.length) {
    spec.injectors = t.injectors.map((inj, i) => {
      const name = exprOr(evaluate, inj.nameExpr, inj.name, "", `injectors[${i}].nameExpr`);
      return {
        ...(inj.group !== undefined && { group: inj.group }),
        ...(inj.version !== undefined && { version: inj.version }),
        ...(inj.kind !== undefined && { kind: inj.kind }),
        name,
      };
    });
  }
  return spec;
}
