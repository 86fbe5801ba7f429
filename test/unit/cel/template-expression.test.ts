import {
  checkTemplateExpression,
  evaluateTemplateExpression,
  ExpressionScope,
  TemplateExpressionError,
  TemplateInputs,
  toCelObject,
} from "../../../lib/cel";

const selector: ExpressionScope = { targetKind: "selector", withRepository: true };
const repoExpr: ExpressionScope = { targetKind: "selector", withRepository: false };
const list: ExpressionScope = { targetKind: "repositories", withRepository: true };

describe("checkTemplateExpression", () => {
  it.each<[string, ExpressionScope, string | undefined]>([
    ["repository.labels['org']", selector, undefined],
    ["repository.labels.region + '-endpoints'", selector, undefined],
    ["upstream.name + '-' + target.name", selector, undefined],
    ["target.annotations['a'].lowerAscii()", selector, undefined],
    ["has(target.labels.x) ? target.labels.x : repoDefault", selector, undefined],
    ["target.repo + '/' + target.package", list, undefined],
    ["repoDefault + '-' + packageDefault", repoExpr, undefined],
    ["target.labels.env + '-repo'", repoExpr, undefined],
    ["target.spec", selector, "No such key: spec (column 8)"],
    ["repository.spec.git.repo", selector, "No such key: spec (column 12)"],
    ["target.labels", list, "No such key: labels (column 8)"],
    ["foo + 'x'", selector, "Unknown variable: foo (column 1)"],
    ["repoDefault +", selector, "Unexpected token: EOF (column 14)"],
    ["1 + 2", selector, "must evaluate to a string, but evaluates to int"],
    ["repository.labels.size() > 0", selector, "must evaluate to a string, but evaluates to bool"],
    ["'a' + 1", selector, "no such overload: string + int (column 1)"],
    ["repoDefault +\n  bar", selector, "Unknown variable: bar (line 2, column 3)"],
  ])("%j", (expression, scope, expected) => {
    const problem = checkTemplateExpression(expression, scope);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toBe(expected);
  });

  // Found by the fault campaign's fuzzing: a one-megabyte string literal with an escape in it
  // took the webhook's event loop for a second to parse (cel-js unescapes it char by char).
  it("refuses an expression over 5000 characters without parsing it", () => {
    const literal = `'${"a".repeat(3000)}\\u0000${"a".repeat(3000)}'`;
    expect(checkTemplateExpression(literal, selector)).toBe(
      "CEL expression is 6008 characters long; at most 5000 are allowed",
    );
    expect(checkTemplateExpression(`'${"a".repeat(4998)}'`, selector)).toBeUndefined();
  });

  it("explains why repository is unknown in downstream.repoExpr", () => {
    expect(checkTemplateExpression("repository.name", repoExpr)).toMatch(
      /^`repository` is not available here \(.*\): Unknown variable: repository \(column 1\)$/,
    );
  });
});

describe("evaluateTemplateExpression", () => {
  const inputs: TemplateInputs = {
    repoDefault: "cluster-01",
    packageDefault: "foo",
    upstream: toCelObject({ metadata: { name: "catalog.foo.v1", namespace: "default" } }),
    target: toCelObject({ metadata: { name: "cluster-01", labels: { region: "useast1" } } }),
    repository: toCelObject({
      metadata: { name: "cluster-01", namespace: "default", labels: { org: "hr" } },
    }),
  };

  it.each<[string, ExpressionScope, string]>([
    ["repository.labels['org']", selector, "hr"],
    ["target.labels['region'] + '-endpoints'", selector, "useast1-endpoints"],
    ["repoDefault + '/' + packageDefault", repoExpr, "cluster-01/foo"],
    ["upstream.namespace", selector, "default"],
  ])("%j → %j", (expression, scope, expected) => {
    expect(evaluateTemplateExpression(expression, scope, inputs)).toBe(expected);
  });

  it("reports a missing label with its position", () => {
    expect(() => evaluateTemplateExpression("repository.labels['nope']", selector, inputs)).toThrow(
      new TemplateExpressionError("No such key: nope (column 1)"),
    );
  });

  it("never exposes more than name, namespace, labels and annotations", () => {
    const secret = { metadata: { name: "s" }, data: { password: "hunter2" } };
    expect(Object.keys(toCelObject(secret)).sort()).toEqual([
      "annotations",
      "labels",
      "name",
      "namespace",
    ]);
  });
});
