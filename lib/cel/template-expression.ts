import type { ParseResult } from "@marcbachmann/cel-js";
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

/** "Unknown variable: foo (column 5)": one line, with the position in the expression. */
function describe(error: unknown, expression: string): string {
  const e = (error ?? {}) as CelLibraryError;
  const summary = e.summary ?? e.message?.split("\n")[0] ?? String(error);
  if (e.range === undefined) return summary;
  const before = expression.slice(0, e.range.start).split("\n");
  const column = before[before.length - 1].length + 1;
  const where = before.length > 1 ? `line ${before.length}, column ${column}` : `column ${column}`;
  return `${summary} (${where})`;
}

function unavailableRepository(expression: string, scope: ExpressionScope): boolean {
  return !scope.withRepository && /\brepository\b/.test(expression);
}

const REPOSITORY_HINT =
  "`repository` is not available here (the downstream repository is loaded from this " +
  "expression's result, so use repoDefault or target)";

/**
 * Parses and type-checks an expression against the template variables. Returns the problem
 * as one line, or undefined when the expression is a well-typed string expression.
 */
export function checkTemplateExpression(
  expression: string,
  scope: ExpressionScope,
): string | undefined {
  let result;
  try {
    result = environmentFor(scope).check(expression);
  } catch (error) {
    return describe(error, expression);
  }
  if (!result.valid) {
    const problem = describe(result.error, expression);
    return unavailableRepository(expression, scope) && problem.startsWith("Unknown variable")
      ? `${REPOSITORY_HINT}: ${problem}`
      : problem;
  }
  if (result.type !== "string") {
    return `must evaluate to a string, but evaluates to ${result.type}`;
  }
  return undefined;
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
    program = environmentFor(scope).parse(expression);
    compiled.set(key, program);
  }
  return program;
}

/** Evaluates a template expression to a string; failures throw TemplateExpressionError. */
export function evaluateTemplateExpression(
  expression: string,
  scope: ExpressionScope,
  inputs: TemplateInputs,
): string {
  let value: unknown;
  try {
    const context: Record<string, unknown> = { ...inputs };
    if (!scope.withRepository) delete context.repository;
    value = compile(expression, scope)(context);
  } catch (error) {
    throw new TemplateExpressionError(describe(error, expression));
  }
  if (typeof value !== "string") {
    throw new TemplateExpressionError(
      `must evaluate to a string, but evaluated to ${typeof value}`,
    );
  }
  return value;
}
