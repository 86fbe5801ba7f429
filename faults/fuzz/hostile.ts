// Hostile values the mutations draw from: each list is what a careless or malicious author
// could write into one kind of field.
import type { Rng } from "../prng";
import type { Json } from "./seeds";

/** Strings of these lengths; the largest keeps a request well under the API server's 3 MiB. */
export const HUGE_LENGTHS = [300, 5_000, 70_000, 1_000_000] as const;

/** Characters that break naive string handling: NUL, escapes, bidi, joiners, surrogates. */
export const UNICODE = [
  "\u0000",
  "\u0007",
  "\u001b[31m",
  "\r\n",
  "\t",
  "\u202e",
  "\u200b",
  "\ufeff",
  "\u2028",
  "😀",
  "👩‍👩‍👧",
  "e\u0301",
  "\ud800",
  "\udfff",
  "İ",
  "ß",
  "Ω",
  "ｆｕｌｌ",
  "日本語",
  "\u0085",
  "%00",
  "\\u0000",
];

/** Values of every JSON type; a mutation picks one whose type differs from the original. */
export const TYPED_VALUES: Json[] = [
  0,
  -1,
  1.5,
  1e308,
  true,
  false,
  null,
  "",
  "1",
  "true",
  [],
  ["a"],
  [1, [2]],
  {},
  { a: "b" },
  { "": null },
];

export const typeOf = (v: Json | undefined) =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v;

/** Wrong values for the enum-like fields (policies, lifecycle, revision, strategies). */
export const WRONG_ENUMS: Json[] = [
  "",
  " ",
  "ADOPTNONE",
  "adoptnone ",
  "Delete",
  "delete\u0000",
  "draft",
  "Published2",
  "latest2",
  "LATEST",
  "v0",
  "v-1",
  "v1.5",
  "-1",
  0,
  -1,
  1e30,
  2.5,
  "Draft,Published",
  "git ",
  "svn",
  "resource_merge",
  "😀",
];

export const CEL_UNPARSABLE = [
  "",
  " ",
  "(",
  ")",
  "'unterminated",
  '"unterminated',
  "a +",
  "repository.",
  "1 +* 2",
  "}{",
  "'\\q'",
  "b'\\xff",
  "0x",
  "1..2",
  "@",
  "repository.labels[",
  "has(",
  "`x`",
  "\u0000",
  "'a' 'b'",
  "in",
  "null.",
  ").(",
  "? :",
  "a ? b",
  "1 = 1",
  "x => x",
  "'''",
  "r'",
  "{1:",
  "[1,,2]",
  "repository.name.matches(",
  "//comment only",
];

export const CEL_TYPE_WRONG = [
  "1 + 'a'",
  "repository",
  "repository.labels",
  "size(1)",
  "repository.name + 1",
  "repository.nope",
  "target.package",
  "upstream.labels['x'] * 2",
  "[1, 2]",
  "{'a': 1}",
  "true",
  "1",
  "2.5",
  "null",
  "b'bytes'",
  "repository.name.matches(1)",
  "unknownFn('x')",
  "repository.labels['a'].size() + 'x'",
  "target",
  "duration('1s')",
  "int('x')",
  "repository.name.upperAscii(1)",
  "nope",
  "repoDefault - packageDefault",
  "!repoDefault",
  "repository.labels.exists(k, k)",
];

const digits = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]";

/** Expressions whose cost (estimated or at run time) is enormous, and long-running regexes. */
export function celExpensive(rng: Rng): string {
  const depth = rng.int(3, 8);
  const vars = Array.from({ length: depth }, (_, i) => `v${i}`);
  const nested = vars.reduceRight(
    (inner, v) => `${digits}.map(${v}, ${inner})`,
    `string(${vars.join(" + ")})`,
  );
  return rng.pick([
    `string(size(${nested}))`,
    "repository.labels.all(a, repository.labels.all(b, a + b != '')) ? 'y' : 'n'",
    `repository.name.matches('(a+)+$') ? 'y' : 'n'`,
    `repository.name.matches('${"(a|a)".repeat(rng.int(5, 50))}b') ? 'y' : 'n'`,
    Array.from({ length: rng.int(100, 5000) }, () => "repository.name").join(" + "),
    `${digits}.filter(a, ${digits}.exists(b, ${digits}.all(c, a + b + c > 0))).size() > 0 ? 'y' : 'n'`,
    `[${Array.from({ length: rng.int(100, 10000) }, (_, i) => i).join(",")}].map(x, string(x)).join('')`,
  ]);
}

/** Regular expressions that do not compile under RE2 or are pathological, inside CEL. */
export const BAD_REGEXES = [
  "(",
  "[",
  "a{2,1}",
  "(?<name>a)",
  "(a)\\\\1",
  "(?=a)",
  "(?<!a)b",
  "\\\\p{Foo}",
  "*",
  "a**",
  "(a+)+$",
  "x{1001}",
  "\\\\",
  "[z-a]",
  "(?P<n>",
  "(?i",
];

/** Names and package paths that escape, collide with git's internals or are not DNS names. */
export const HOSTILE_NAMES = [
  "",
  "..",
  ".",
  "../../etc/passwd",
  "/abs",
  ".git",
  "a/.git/b",
  ".GIT/config",
  "a//b",
  "./a",
  "a\\b",
  "~",
  "a\u0000b",
  "UPPER",
  "-rf",
  "--upload-pack=touch /tmp/pwned",
  "refs/heads/main",
  "HEAD",
  "a:b",
  "a*?[",
  " ",
  "a b",
  "x-",
  "a..b",
  "%2e%2e",
  "日本",
  "con",
  "a/".repeat(200),
  "x".repeat(254),
  "x".repeat(5000),
];

/** URLs and images that reach the node, the cloud's metadata service, or a shell. */
export const HOSTILE_URLS = [
  "",
  "file:///etc/passwd",
  "http://169.254.169.254/latest/meta-data/",
  "http://127.0.0.1:6443/",
  "http://localhost/x.git",
  "ssh://git@[::1]/x.git",
  "git@localhost:x.git",
  "--upload-pack=touch /tmp/pwned",
  "ext::sh -c touch% /tmp/pwned",
  "https://user:pass@example.com/x.git",
  "https://example.com/%00",
  "https://[::ffff:127.0.0.1]/x.git",
  "http://0x7f000001/x.git",
  "javascript:alert(1)",
  "https://",
  "https://exa mple.com/x.git",
  "\\\\server\\share",
  `https://${"a".repeat(3000)}.com/x.git`,
  "example.com/../../etc/passwd",
  "image@sha256:zz",
  "UPPER/Case:TAG",
  "/bin/sh",
];
