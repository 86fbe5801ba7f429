import type { Environment, ParseResult } from "@marcbachmann/cel-js";
import { compileTenantRegex, regexProblem } from "../regex";
import { allNodes, children, literal, Node, receiverCall, wrapEvaluate } from "./ast";
import { charge, matchCost, sizeCost } from "./cost";

/**
 * cel-js implements `matches()` with JavaScript's backtracking RegExp and refuses a second
 * overload of it, so every `s.matches(re)` is rewritten after parsing into this function,
 * which matches with RE2 (lib/regex) and charges the match to the cost meter.
 */
const RE2_MATCHES = "__re2_matches";

/** Registers the RE2 regex functions the rewritten expressions call. */
export function withRegexFunctions(env: Environment): Environment {
  return env.registerFunction(
    `string.${RE2_MATCHES}(string): bool`,
    (input: string, pattern: string) => {
      charge(matchCost(input.length, pattern.length));
      return compileTenantRegex(pattern).test(input);
    },
  );
}

/** Library messages name the function as the tenant wrote it. */
export function publicWording(message: string): string {
  return message.split(RE2_MATCHES).join("matches");
}

/** Parses an expression, with `matches()` rewritten to RE2 (not yet type-checked). */
export function parseProgram(env: Environment, expression: string): ParseResult {
  const program = env.parse(expression);
  for (const node of allNodes(program)) {
    const call = receiverCall(node);
    if (call && call[0] === "matches" && call[2].length === 1) call[0] = RE2_MATCHES;
  }
  return program;
}

/** Problems of constant regexes (`x.matches('(a)\\1')`), each with its position. */
export function constantRegexProblems(program: ParseResult): { problem: string; at: number }[] {
  return allNodes(program).flatMap(node => {
    const call = receiverCall(node);
    if (!call || call[0] !== RE2_MATCHES) return [];
    const pattern = literal(call[2][0]);
    const problem = typeof pattern === "string" ? regexProblem(pattern) : undefined;
    return problem ? [{ problem, at: call[2][0].start }] : [];
  });
}

/** Operators whose result is built at evaluation time: its size is part of the cost. */
const BUILDS_RESULT = new Set(["+", "call", "rcall"]);

function resultSize(value: unknown): number {
  if (typeof value === "string" || Array.isArray(value)) return value.length;
  return 0;
}

/**
 * Makes every node of a checked program charge the active cost meter as it is evaluated:
 * one unit per node, plus the size of what `+` and function calls build.
 */
export function meterProgram(program: ParseResult): void {
  for (const node of allNodes(program)) {
    const sized = BUILDS_RESULT.has(node.op);
    wrapEvaluate(node, inner => {
      charge(1);
      const value = inner();
      if (sized) charge(sizeCost(resultSize(value)));
      return value;
    });
  }
}

interface Estimate {
  /** The least cost the node certainly has, whatever the inputs. */
  cost: number;
  /** The least length of its string or list result. */
  size: number;
}

function sum(nodes: Node[]): number {
  return nodes.reduce((total, n) => total + estimate(n).cost, 0);
}

function estimateComprehension(node: Node): Estimate {
  const args = node.args as { iterable: Node; init: Node; step: Node; kind?: string };
  const iterable = estimate(args.iterable);
  // all() and exists() may stop after the first element.
  const iterations = args.kind === "quantifier" ? Math.min(1, iterable.size) : iterable.size;
  const cost = 1 + iterable.cost + estimate(args.init).cost + iterations * estimate(args.step).cost;
  return { cost, size: args.step.op === "accuPush" ? iterable.size : 0 };
}

function estimateOperator(node: Node, kids: Node[]): Estimate {
  switch (node.op) {
    case "value":
      return { cost: 1, size: resultSize(node.args) };
    case "list":
      return { cost: 1 + sum(kids), size: kids.length };
    case "comprehension":
      return estimateComprehension(node);
    case "?:": {
      const [condition, a, b] = kids.map(estimate);
      return {
        cost: 1 + condition.cost + Math.min(a.cost, b.cost),
        size: Math.min(a.size, b.size),
      };
    }
    case "||":
    case "&&": {
      // The right side counts only when nothing can short-circuit it.
      const right = literal(kids[0]) === undefined ? 0 : estimate(kids[1]).cost;
      return { cost: 1 + estimate(kids[0]).cost + right, size: 0 };
    }
    case "+": {
      const size = kids.reduce((total, n) => total + estimate(n).size, 0);
      return { cost: 1 + sum(kids) + sizeCost(size), size };
    }
    default:
      return { cost: 1 + sum(kids), size: 0 };
  }
}

const estimates = new WeakMap<Node, Estimate>();

function estimate(node: Node): Estimate {
  let known = estimates.get(node);
  if (known) return known;
  const alternate = node.meta.alternate;
  const call = receiverCall(node);
  if (alternate) {
    known = { ...estimate(alternate), cost: 1 + estimate(alternate).cost };
  } else if (call && call[0] === RE2_MATCHES) {
    const pattern = literal(call[2][0]);
    const patternLength = typeof pattern === "string" ? pattern.length : 0;
    const match = matchCost(estimate(call[1]).size, patternLength);
    known = { cost: 1 + estimate(call[1]).cost + sum(call[2]) + match, size: 0 };
  } else {
    const kids: Node[] = [];
    if (call) kids.push(call[1], ...call[2]);
    else kids.push(...children(node));
    known = estimateOperator(node, kids);
  }
  estimates.set(node, known);
  return known;
}

/**
 * What evaluating the program certainly costs, whatever its inputs: the inputs count as
 * empty, so only what the expression itself spells out (literal lists iterated in nested
 * comprehensions, long literal strings matched against literal patterns) adds up. An
 * expression over the budget by this estimate can never run to completion.
 */
export function estimatedCost(program: ParseResult): number {
  return estimate(program.ast as unknown as Node).cost;
}
