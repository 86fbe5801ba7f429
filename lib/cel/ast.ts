import type { ParseResult } from "@marcbachmann/cel-js";

/**
 * The parts of @marcbachmann/cel-js 8.0.0's parsed AST that the regex rewrite and the cost
 * meter rely on, beyond its published types: nodes are mutable, a macro (map, filter, all,
 * exists…) keeps its expansion in `meta.alternate` (or `meta.macro` for has/bind), and every
 * node is evaluated through its own `evaluate(ev, ast, ctx)`. The unit tests of lib/cel fail
 * if an upgrade changes any of this (test/unit/cel/cost.test.ts).
 */
export interface Node {
  op: string;
  args: unknown;
  start: number;
  readonly meta: NodeMeta;
  evaluate: Evaluate;
}

type Evaluate = (ev: unknown, ast: Node, ctx: unknown) => unknown;

interface NodeMeta {
  alternate?: Node;
  macro?: { evaluate: (ev: unknown, macro: unknown, ctx: unknown) => unknown };
  evaluate: Evaluate;
}

function isNode(value: unknown): value is Node {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Node).op === "string" &&
    "meta" in value
  );
}

/** The nodes an operand payload holds: arrays (call arguments, map entries) and objects. */
function childrenOf(args: unknown, out: Node[]): void {
  if (isNode(args)) out.push(args);
  else if (Array.isArray(args)) for (const a of args) childrenOf(a, out);
  else if (typeof args === "object" && args !== null)
    for (const a of Object.values(args)) if (isNode(a)) out.push(a);
}

/** The direct children of a node, its macro expansion included. */
export function children(node: Node): Node[] {
  const out: Node[] = [];
  if (node.meta.alternate) out.push(node.meta.alternate);
  childrenOf(node.args, out);
  return out;
}

/** Every node reachable from the program's root, each once. */
export function allNodes(program: ParseResult): Node[] {
  const root = program.ast as unknown as Node;
  const seen = new Set<Node>([root]);
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    for (const child of children(node)) {
      if (seen.has(child)) continue;
      seen.add(child);
      stack.push(child);
    }
  }
  return [...seen];
}

/** A receiver call `receiver.name(args…)`: [name, receiver, args]. */
export function receiverCall(node: Node): [string, Node, Node[]] | undefined {
  return node.op === "rcall" ? (node.args as [string, Node, Node[]]) : undefined;
}

/** The literal value of a constant node, or undefined. */
export function literal(node: Node): unknown {
  return node.op === "value" ? node.args : undefined;
}

/**
 * Wraps a node's evaluation: `around` runs instead of it and calls `inner` to evaluate it as
 * the library would (its macro expansion, its macro, or its operator).
 */
export function wrapEvaluate(
  node: Node,
  around: (inner: () => unknown, node: Node) => unknown,
): void {
  const meta = node.meta;
  node.evaluate = (ev, ast, ctx) =>
    around(() => {
      if (meta.alternate) return meta.alternate.evaluate(ev, meta.alternate, ctx);
      if (meta.macro) return meta.macro.evaluate(ev, meta.macro, ctx);
      return meta.evaluate(ev, ast, ctx);
    }, node);
}
