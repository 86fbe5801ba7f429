import { compileTenantRegex, InvalidRegexError, regexProblem } from "../../../lib/regex";

// A backtracking engine takes exponential (or high-polynomial) time on these inputs and would
// hang the test (jest cannot interrupt synchronous code); RE2 finishes them in linear time.
// There is deliberately no timing assertion: completing is the test.
const A40 = "a".repeat(40);

describe("tenant regexes (RE2, linear time)", () => {
  it("nested quantifiers `(a+)+$` on a long non-matching input finish", () => {
    expect(compileTenantRegex("^(a+)+$").test(`${A40}!`)).toBe(false);
    expect(compileTenantRegex("(a+)+$").test(`${A40}!`)).toBe(false);
    expect(compileTenantRegex("(a+)+!$").test(`${A40}!`)).toBe(true);
    expect(compileTenantRegex("^(a+)+$").test(A40)).toBe(true);
  });

  it("overlapping alternation `(a|aa)*c` and `(a*)*b` finish", () => {
    expect(compileTenantRegex("^(a|aa)*c$").test(A40.repeat(100))).toBe(false);
    expect(compileTenantRegex("^(a*)*b$").test(A40.repeat(100))).toBe(false);
    expect(compileTenantRegex("^(.*a){20}$").test(`${A40.repeat(50)}!`)).toBe(false);
  });

  it("exec gives the capture groups, undefined for a group that did not take part", () => {
    expect(compileTenantRegex("^(?:something-(.*)|(x))$").exec("something-foo")).toEqual([
      "something-foo",
      "foo",
      undefined,
    ]);
    expect(compileTenantRegex("^b").exec("abc")).toBeNull();
  });

  it("an invalid RE2 pattern is a clear error naming the pattern", () => {
    expect(() => compileTenantRegex("(a)\\1")).toThrow(InvalidRegexError);
    expect(regexProblem("(a)\\1")).toBe(
      'invalid regular expression "(a)\\\\1": invalid escape sequence: `\\1`',
    );
    expect(regexProblem("(?=a)b")).toMatch(
      /^invalid regular expression "\(\?=a\)b": invalid or unsupported Perl syntax/,
    );
    expect(regexProblem("a{1001}")).toMatch(/invalid repeat count/);
    expect(regexProblem("^ok$")).toBeUndefined();
  });
});
