import type { ParseResult } from "@marcbachmann/cel-js";
import {
  CelCostBudget,
  COST_LIMIT_PER_EVALUATION,
  CostLimitExceededError,
  CostMeter,
  metered,
} from "./cost";
import {
  constantRegexProblems,
  estimatedCost,
  meterProgram,
  parseProgram,
  publicWording,
} from "./program";
import { environmentFor, ExpressionScope } from "./template-environment";

/** What CEL sees of a Kubernetes object. */
export interface CelObject {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface TemplateInputs {
  repoDefault: string;
  packageDefault: string;
  upstream: CelObject;
  target: CelObject | { repo: string; package: string };
  repository?: CelObject;
}

interface ObjectWithMetadata {
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
}

/** Projects an object onto the four fields templates may read. */
export function toCelObject(obj: ObjectWithMetadata): CelObject {
  return {
    name: obj.metadata?.name ?? "",
    namespace: obj.metadata?.namespace ?? "",
    labels: { ...(obj.metadata?.labels ?? {}) },
    annotations: { ...(obj.metadata?.annotations ?? {}) },
  };
}

interface CelLibraryError {
  summary?: string;
  message?: string;
  range?: { start: number };
}

/** "column 5", or "line 2, column 1" in a multi-line expression. */
function position(expression: string, at: number): string {
  const before = expression.slice(0, at).split("\n");
  const column = before[before.length - 1].length + 1;
  return before.length > 1 ? `line ${before.length}, column ${column}` : `column ${column}`;
}

/** "Unknown variable: foo (column 5)": one line, with the position in the expression. */
function describe(error: unknown, expression: string): string {
  const e = (error ?? {}) as CelLibraryError;
  const summary = publicWording(e.summary ?? e.message?.split("\n")[0] ?? String(error));
  if (e.range === undefined) return summary;
  return `${summary} (${position(expression, e.range.start)})`;
}

/** What can be told before running the expression: constant regexes, the cost estimate. */
function staticProblem(program: ParseResult, expression: string): string | undefined {
  const [regex] = constantRegexProblems(program);
  if (regex) return `${regex.problem} (${position(expression, regex.at)})`;
  const cost = estimatedCost(program);
  if (cost > COST_LIMIT_PER_EVALUATION) {
    return (
      `CEL expression exceeds the cost budget: its estimated cost ${cost} is over the limit ` +
      `of ${COST_LIMIT_PER_EVALUATION} per evaluation`
    );
  }
  return undefined;
}

function unavailableRepository(expression: string, scope: ExpressionScope): boolean {
  return !scope.withRepository && /\brepository\b/.test(expression);
}

const REPOSITORY_HINT =
  "`repository` is not available here (the downstream repository is loaded from this " +
  "expression's result, so use repoDefault or target)";

/**
 * The longest expression parsed. Template expressions are a line or two; parsing is
 * superlinear in places (a megabyte literal with an escape took a second of the webhook's
 * event loop), and length is the one bound that holds before the parser runs.
 */
export const MAX_EXPRESSION_LENGTH = 5000;

function lengthProblem(expression: string): string | undefined {
  return expression.length > MAX_EXPRESSION_LENGTH
    ? `CEL expression is ${expression.length} characters long; at most ${MAX_EXPRESSION_LENGTH} are allowed`
    : undefined;
}

/** What an expression must evaluate to: a template field's string, or a wave's bool. */
export type ResultType = "string" | "bool";

/**
 * Parses and type-checks an expression against the template variables. Returns the problem
 * as one line, or undefined when the expression is well-typed and of `resultType`.
 */
export function checkTemplateExpression(
  expression: string,
  scope: ExpressionScope,
  resultType: ResultType = "string",
): string | undefined {
  const tooLong = lengthProblem(expression);
  if (tooLong) return tooLong;
  let program;
  let result;
  try {
    program = parseProgram(environmentFor(scope), expression);
    result = program.check();
  } catch (error) {
    return describe(error, expression);
  }
  if (!result.valid) {
    const problem = describe(result.error, expression);
    return unavailableRepository(expression, scope) && problem.startsWith("Unknown variable")
      ? `${REPOSITORY_HINT}: ${problem}`
      : problem;
  }
  if (result.type !== resultType) {
    return `must evaluate to ${resultType === "string" ? "a string" : "a bool"}, but evaluates to ${result.type}`;
  }
  return staticProblem(program, expression);
}

/** Thrown when a template expression fails at evaluation time (e.g. a missing label). */
export class TemplateExpressionError extends Error {}

const compiled = new Map<string, ParseResult>();
const MAX_COMPILED = 5000;

function compile(expression: string, scope: ExpressionScope): ParseResult {
  const key = `${scope.targetKind}/${scope.withRepository}/${expression}`;
  let program = compiled.get(key);
  if (!program) {
    // Sets share their templates across thousands of targets: compile each expression once.
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    const tooLong = lengthProblem(expression);
    if (tooLong) throw new TemplateExpressionError(tooLong);
    program = parseProgram(environmentFor(scope), expression);
    // Checked once here, so evaluation runs the metered nodes and never re-checks them.
    const result = program.check();
    if (!result.valid) throw result.error;
    meterProgram(program);
    compiled.set(key, program);
  }
  return program;
}

/** The meter of one evaluation: the per-evaluation limit, or what is left of the object's. */
function meterFor(budget: CelCostBudget): CostMeter {
  if (budget.remaining < COST_LIMIT_PER_EVALUATION) {
    return new CostMeter(
      budget.remaining,
      `CEL cost budget of ${budget.what} exhausted (${budget.limit} per reconcile)`,
    );
  }
  return new CostMeter(
    COST_LIMIT_PER_EVALUATION,
    `CEL expression exceeds the cost budget at run time (${COST_LIMIT_PER_EVALUATION} per evaluation)`,
  );
}

/** Runs an expression, spending from `budget`; failures throw TemplateExpressionError. */
function evaluate(
  expression: string,
  scope: ExpressionScope,
  inputs: TemplateInputs,
  budget: CelCostBudget,
): unknown {
  const meter = meterFor(budget);
  try {
    const context: Record<string, unknown> = { ...inputs };
    if (!scope.withRepository) delete context.repository;
    const program = compile(expression, scope);
    return metered(meter, () => program(context));
  } catch (error) {
    if (error instanceof CostLimitExceededError) throw new TemplateExpressionError(error.message);
    throw new TemplateExpressionError(describe(error, expression));
  } finally {
    budget.spend(meter.spent);
  }
}

/**
 * Evaluates a template expression to a string, spending from `budget` (the object's budget;
 * by default one of its own); failures throw TemplateExpressionError.
 */
export function evaluateTemplateExpression(
  expression: string,
  scope: ExpressionScope,
  inputs: TemplateInputs,
  budget: CelCostBudget = new CelCostBudget(),
): string {
  const value = evaluate(expression, scope, inputs, budget);
  if (typeof value !== "string") {
    throw new TemplateExpressionError(
      `must evaluate to a string, but evaluated to ${typeof value}`,
    );
  }
  return value;
}

/** The same for a bool expression over the template inputs (a rollout wave's). */
export function evaluateTemplateCondition(
  expression: string,
  scope: ExpressionScope,
  inputs: TemplateInputs,
  budget: CelCostBudget,
): boolean {
  const value = evaluate(expression, scope, inputs, budget);
  if (typeof value !== "boolean") {
    throw new TemplateExpressionError(`must evaluate to a bool, but evaluated to ${typeof value}`);
  }
  return value;
}
