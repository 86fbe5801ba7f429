import { RE2JS } from "re2js";

/**
 * The one way to compile a regular expression that comes from a tenant (a CEL `matches()`, a
 * search-replace `by-value-regex`, a glob or a setter pattern from package files). RE2
 * semantics, as Kubernetes' CEL and the Go KRM functions have, matched in time linear in the
 * input: JavaScript's backtracking RegExp takes exponential time on `^(a+)+$` and would block
 * the controller's event loop for every tenant. Pure JavaScript (no native addon), so it runs
 * in the stock Pepr image.
 */
export interface TenantRegex {
  /** The pattern as written. */
  readonly pattern: string;
  /** True when the pattern matches any part of the input (RegExp.prototype.test). */
  test(input: string): boolean;
  /** The match and its capture groups (undefined for a group that did not take part), or null. */
  exec(input: string): (string | undefined)[] | null;
}

/** A pattern RE2 does not accept (a backreference, a lookahead, a repeat count over 1000…). */
export class InvalidRegexError extends Error {}

interface SyntaxError {
  getDescription?: () => string;
  message?: string;
}

/** `invalid regular expression "(a)\1": invalid escape sequence: `\1``. */
function describe(pattern: string, error: unknown): string {
  const message = (error as SyntaxError).message ?? String(error);
  const detail = message.replace(/^error parsing regexp: /, "");
  return `invalid regular expression ${JSON.stringify(pattern)}: ${detail}`;
}

const compiled = new Map<string, TenantRegex>();
/** Templates and function configs reuse a handful of patterns; the cap bounds the memory. */
const MAX_COMPILED = 1000;

/** Compiles a tenant's pattern; an invalid one throws InvalidRegexError naming the pattern. */
export function compileTenantRegex(pattern: string): TenantRegex {
  const cached = compiled.get(pattern);
  if (cached) return cached;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    throw new InvalidRegexError(describe(pattern, error));
  }
  const regex: TenantRegex = {
    pattern,
    test: input => re.test(input),
    exec: input => {
      const match = re.exec(input);
      return match ? [...match] : null;
    },
  };
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(pattern, regex);
  return regex;
}

/** The problem with a pattern as one line, or undefined when RE2 accepts it. */
export function regexProblem(pattern: string): string | undefined {
  try {
    compileTenantRegex(pattern);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidRegexError) return error.message;
    throw error;
  }
}

/** Quotes text so that it matches itself literally. */
export function quoteRegex(text: string): string {
  return RE2JS.quote(text);
}
