import {
  CelCostBudget,
  checkTemplateExpression,
  COST_LIMIT_PER_EVALUATION,
  evaluateTemplateExpression,
  ExpressionScope,
  TemplateExpressionError,
  TemplateInputs,
  toCelObject,
} from "../../../lib/cel";

const scope: ExpressionScope = { targetKind: "selector", withRepository: true };

function inputs(labels: Record<string, string>, annotations: Record<string, string> = {}) {
  const target = toCelObject({ metadata: { name: "t", labels, annotations } });
  return {
    repoDefault: "r",
    packageDefault: "p",
    upstream: target,
    target,
    repository: target,
  } satisfies TemplateInputs;
}

/** 200 labels: a triple comprehension over them is 8 million steps. */
const MANY_LABELS = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, `v${i}`]));

/** A literal list of n integers, as a tenant could type it. */
const list = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(", ")}]`;

describe("CEL matches() runs RE2 in linear time", () => {
  // A backtracking engine takes minutes on each of these; there is no timing assertion, the
  // test simply completes.
  it("a constant catastrophic pattern on a constant long input", () => {
    const expression = `'${"a".repeat(40)}!'.matches('^(a+)+$') ? 'matched' : 'no'`;
    expect(checkTemplateExpression(expression, scope)).toBeUndefined();
    expect(evaluateTemplateExpression(expression, scope, inputs({}))).toBe("no");
  });

  it("a pattern and an input from labels", () => {
    const expression = "target.labels['s'].matches(target.labels['re']) ? 'matched' : 'no'";
    const labels = { s: `${"a".repeat(5000)}c`, re: "^(a|aa)*b$" };
    expect(evaluateTemplateExpression(expression, scope, inputs(labels))).toBe("no");
    expect(evaluateTemplateExpression(expression, scope, inputs({ s: "xaay", re: "a+y$" }))).toBe(
      "matched",
    );
  });

  it("a constant pattern RE2 refuses is denied with the pattern and its column", () => {
    expect(checkTemplateExpression("repoDefault.matches('(a)\\\\1') ? 'a' : 'b'", scope)).toBe(
      'invalid regular expression "(a)\\\\1": invalid escape sequence: `\\1` (column 21)',
    );
  });

  it("a pattern RE2 refuses at run time fails the evaluation naming it", () => {
    const expression = "repoDefault.matches(target.labels['re']) ? 'a' : 'b'";
    expect(() => evaluateTemplateExpression(expression, scope, inputs({ re: "(?=x)" }))).toThrow(
      /invalid regular expression "\(\?=x\)": invalid or unsupported Perl syntax/,
    );
  });

  it("type errors still name matches() as written", () => {
    expect(checkTemplateExpression("repoDefault.matches(1) ? 'a' : 'b'", scope)).toMatch(
      /found no matching overload for 'string\.matches\(int\)'/,
    );
  });
});

describe("CEL cost budget", () => {
  it("admission denies an expression whose cost is known to exceed the budget", () => {
    const expression = `${list(40)}.map(a, ${list(40)}.map(b, ${list(40)}.map(c, ${list(40)}.map(d, a + b + c + d)))).size() > 0 ? 'x' : 'y'`;
    expect(checkTemplateExpression(expression, scope)).toMatch(
      new RegExp(
        `^CEL expression exceeds the cost budget: its estimated cost \\d+ is over the limit of ${COST_LIMIT_PER_EVALUATION} per evaluation$`,
      ),
    );
  });

  it("admission accepts ordinary expressions and costs unknown before run time", () => {
    for (const expression of [
      "target.labels['region'] + '-' + repoDefault",
      `${list(40)}.map(a, ${list(40)}.map(b, a + b)).size() > 0 ? 'x' : 'y'`,
      "target.labels.map(a, target.labels.map(b, a + b)).size() > 0 ? 'x' : 'y'",
      `${list(200)}.exists(a, ${list(200)}.exists(b, a == b)) ? 'x' : 'y'`,
    ]) {
      expect(checkTemplateExpression(expression, scope)).toBeUndefined();
    }
  });

  it("a comprehension over inputs that exceeds the budget at run time is stopped", () => {
    const expression =
      "target.labels.map(a, target.labels.map(b, target.labels.map(c, a + b + c))).size() > 0 ? 'x' : 'y'";
    expect(checkTemplateExpression(expression, scope)).toBeUndefined();
    expect(evaluateTemplateExpression(expression, scope, inputs({ a: "1", b: "2" }))).toBe("x");
    expect(() => evaluateTemplateExpression(expression, scope, inputs(MANY_LABELS))).toThrow(
      new TemplateExpressionError(
        `CEL expression exceeds the cost budget at run time (${COST_LIMIT_PER_EVALUATION} per evaluation)`,
      ),
    );
  });

  it("an overrun inside exists(), whose errors cel-js absorbs, is still reported", () => {
    const expression =
      "target.labels.exists(a, target.labels.exists(b, target.labels.exists(c, a + b + c == 'never'))) || true ? 'x' : 'y'";
    expect(() => evaluateTemplateExpression(expression, scope, inputs(MANY_LABELS))).toThrow(
      /exceeds the cost budget at run time/,
    );
  });

  it("strings doubled by cel.bind are charged by size", () => {
    const doublings = 20;
    let body = `s${doublings}`;
    for (let i = doublings; i > 0; i--) body = `cel.bind(s${i}, s${i - 1} + s${i - 1}, ${body})`;
    const expression = `cel.bind(s0, target.annotations['big'], ${body}).size() > 0 ? 'x' : 'y'`;
    const big = { big: "z".repeat(100_000) };
    expect(() => evaluateTemplateExpression(expression, scope, inputs({}, big))).toThrow(
      /exceeds the cost budget at run time/,
    );
  });

  it("evaluations share the object's budget; when it runs out the next one fails", () => {
    const budget = new CelCostBudget(60);
    const expression = "target.labels.map(k, k + '-x').join(',')";
    const labels = { a: "1", b: "2", c: "3" };
    expect(evaluateTemplateExpression(expression, scope, inputs(labels), budget)).toBe(
      "a-x,b-x,c-x",
    );
    expect(budget.remaining).toBeLessThan(60);
    expect(() => {
      for (let i = 0; i < 10; i++)
        evaluateTemplateExpression(expression, scope, inputs(labels), budget);
    }).toThrow(
      new TemplateExpressionError(
        "CEL cost budget of the PackageVariantSet exhausted (60 per reconcile)",
      ),
    );
  });
});
