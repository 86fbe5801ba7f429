// A commit identity (author name or email from a Repository, a requesting user's name) is data
// written into a commit header line: `author <name> <<email>> <date>`. A line break would start
// a forged header, `<` or `>` would move where the email is read.

/** Longest name or email kept (git itself sets no limit; a header line should stay readable). */
export const MAX_IDENTITY_LENGTH = 256;

// C0 and C1 control characters and DEL, the angle brackets that delimit the email.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f<>]/;
// eslint-disable-next-line no-control-regex
const UNSAFE_ALL = /[\u0000-\u001f\u007f-\u009f<>]/g;

/** Why a value cannot be a commit identity, or undefined when it can (admission's rule). */
export function identityProblem(value: string): string | undefined {
  if (UNSAFE.test(value)) return "must not contain control characters, '<' or '>'";
  if (value.length > MAX_IDENTITY_LENGTH)
    return `must be no more than ${MAX_IDENTITY_LENGTH} characters`;
  return undefined;
}

/**
 * The same rule applied where a commit is written: unsafe characters dropped (as git drops
 * them from identities), the rest cut to the bound, so an object admitted before the rule
 * existed cannot forge a header either.
 */
export function safeIdentity(value: string): string {
  return value.replace(UNSAFE_ALL, "").trim().slice(0, MAX_IDENTITY_LENGTH);
}
