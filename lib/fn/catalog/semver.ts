// Semantic versions of image tags, and the version ranges a catalog's tag patterns may use, with
// node-semver's meaning: `>=1.2.0 <2`, `1.2.x`, `~1.2`, `^1.2`, `1.2 - 1.4`, `a || b`, with an
// optional `v` before each version. Hand-parsed (no expression built from the text), bounded.

export interface Version {
  major: number;
  minor: number;
  patch: number;
  /** Dot-separated identifiers after `-`; numbers compare as numbers. */
  prerelease: (string | number)[];
}

type Op = "<" | "<=" | ">" | ">=" | "=";

interface Comparator {
  op: Op;
  version: Version;
}

/** Sets of comparators, any of which may hold (`||`); every comparator of a set must hold. */
export type VersionRange = Comparator[][];

const MAX_COMPARATORS = 32;
const NUMBER = /^(0|[1-9][0-9]{0,14})$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;

/** A partial version as a range writes it: missing or x/X/* parts are undefined. */
interface Partial {
  major?: number;
  minor?: number;
  patch?: number;
  prerelease: (string | number)[];
}

function parsePrerelease(text: string): (string | number)[] | undefined {
  const parts = text.split(".");
  if (!parts.every(p => IDENTIFIER.test(p))) return undefined;
  return parts.map(p => (NUMBER.test(p) ? Number(p) : p));
}

function parsePartial(text: string): Partial | undefined {
  const body = text.startsWith("v") || text.startsWith("V") ? text.slice(1) : text;
  const dash = body.indexOf("-");
  const core = dash < 0 ? body : body.slice(0, dash);
  const prerelease = dash < 0 ? [] : parsePrerelease(body.slice(dash + 1));
  if (!prerelease) return undefined;
  const parts = core.split(".");
  if (parts.length > 3) return undefined;
  const numbers: (number | undefined)[] = [];
  for (const part of parts) {
    if (part === "x" || part === "X" || part === "*") numbers.push(undefined);
    else if (NUMBER.test(part)) numbers.push(Number(part));
    else return undefined;
  }
  // A number after a wildcard (`1.x.3`) means nothing.
  const firstX = numbers.indexOf(undefined);
  if (firstX >= 0 && numbers.slice(firstX).some(n => n !== undefined)) return undefined;
  if (prerelease.length > 0 && (numbers.length < 3 || firstX >= 0)) return undefined;
  const [major, minor, patch] = numbers;
  return { major, minor, patch, prerelease };
}

/** A full version (`1.2.3`, `v1.2.3-rc.1`), or undefined: a tag like `v1.2` or `latest` is none. */
export function parseVersion(text: string): Version | undefined {
  const p = parsePartial(text);
  if (!p || p.major === undefined || p.minor === undefined || p.patch === undefined)
    return undefined;
  return { major: p.major, minor: p.minor, patch: p.patch, prerelease: p.prerelease };
}

function compareIdentifiers(a: string | number, b: string | number): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number") return -1;
  if (typeof b === "number") return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareVersions(a: Version, b: Version): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return core;
  // A prerelease sorts before its release.
  if (a.prerelease.length === 0 || b.prerelease.length === 0)
    return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.max(a.prerelease.length, b.prerelease.length); i++) {
    if (a.prerelease[i] === undefined) return -1;
    if (b.prerelease[i] === undefined) return 1;
    const order = compareIdentifiers(a.prerelease[i], b.prerelease[i]);
    if (order !== 0) return order;
  }
  return 0;
}

const version = (major: number, minor = 0, patch = 0, prerelease: (string | number)[] = []) => ({
  major,
  minor,
  patch,
  prerelease,
});
/** `-0` sorts below every prerelease of that version: `<2.0.0-0` excludes 2.0.0-rc.1 too. */
const below = (major: number, minor = 0, patch = 0) => version(major, minor, patch, [0]);
const NOTHING: Comparator[] = [{ op: "<", version: below(0) }];

function xRange(op: Op | "", p: Partial): Comparator[] {
  const { major, minor, patch } = p;
  if (major === undefined) return op === "<" || op === ">" ? NOTHING : [];
  if (minor !== undefined && patch !== undefined)
    return [{ op: op || "=", version: version(major, minor, patch, p.prerelease) }];
  const partialOp = op === "=" ? "" : op;
  switch (partialOp) {
    case "":
      return minor === undefined
        ? [
            { op: ">=", version: version(major) },
            { op: "<", version: below(major + 1) },
          ]
        : [
            { op: ">=", version: version(major, minor) },
            { op: "<", version: below(major, minor + 1) },
          ];
    case ">":
      return [
        {
          op: ">=",
          version: minor === undefined ? version(major + 1) : version(major, minor + 1),
        },
      ];
    case ">=":
      return [{ op: ">=", version: version(major, minor ?? 0) }];
    case "<":
      return [{ op: "<", version: below(major, minor ?? 0) }];
    case "<=":
      return [
        { op: "<", version: minor === undefined ? below(major + 1) : below(major, minor + 1) },
      ];
  }
}

function tilde(p: Partial): Comparator[] {
  if (p.major === undefined) return [];
  const upper = p.minor === undefined ? below(p.major + 1) : below(p.major, p.minor + 1);
  const lower = version(p.major, p.minor ?? 0, p.patch ?? 0, p.prerelease);
  return [
    { op: ">=", version: lower },
    { op: "<", version: upper },
  ];
}

function caret(p: Partial): Comparator[] {
  const { major, minor, patch } = p;
  if (major === undefined) return [];
  const lower = version(major, minor ?? 0, patch ?? 0, p.prerelease);
  let upper: Version;
  if (major > 0 || minor === undefined) upper = below(major + 1);
  else if (minor > 0 || patch === undefined) upper = below(0, minor + 1);
  else upper = below(0, 0, patch + 1);
  return [
    { op: ">=", version: lower },
    { op: "<", version: upper },
  ];
}

function hyphen(from: Partial, to: Partial): Comparator[] {
  const lower: Comparator[] =
    from.major === undefined
      ? []
      : [
          {
            op: ">=",
            version: version(from.major, from.minor ?? 0, from.patch ?? 0, from.prerelease),
          },
        ];
  if (to.major === undefined) return lower;
  let upper: Comparator;
  if (to.minor === undefined) upper = { op: "<", version: below(to.major + 1) };
  else if (to.patch === undefined) upper = { op: "<", version: below(to.major, to.minor + 1) };
  else upper = { op: "<=", version: version(to.major, to.minor, to.patch, to.prerelease) };
  return [...lower, upper];
}

const OPERATORS = ["<=", ">=", "<", ">", "=", "~", "^"] as const;

function comparators(token: string): Comparator[] | undefined {
  const op = OPERATORS.find(o => token.startsWith(o)) ?? "";
  const partial = parsePartial(token.slice(op.length));
  if (!partial) return undefined;
  if (op === "~") return tilde(partial);
  if (op === "^") return caret(partial);
  return xRange(op, partial);
}

/** Splits a set into tokens, joining an operator written apart from its version (`>= 1.2`). */
function tokens(set: string): string[] {
  const words = set.split(/\s+/).filter(w => w !== "");
  const joined: string[] = [];
  for (const word of words) {
    const last = joined[joined.length - 1];
    if (last !== undefined && (OPERATORS as readonly string[]).includes(last))
      joined[joined.length - 1] = last + word;
    else joined.push(word);
  }
  return joined;
}

function parseSet(set: string): Comparator[] | { problem: string } {
  const words = tokens(set);
  if (words.length === 0) return { problem: "has an empty alternative around ||" };
  const result: Comparator[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i + 1] === "-") {
      const from = parsePartial(words[i]);
      const to = words[i + 2] === undefined ? undefined : parsePartial(words[i + 2]);
      if (!from || !to)
        return {
          problem: `${JSON.stringify(words.slice(i, i + 3).join(" "))} is not a range a - b`,
        };
      result.push(...hyphen(from, to));
      i += 2;
      continue;
    }
    const parsed = comparators(words[i]);
    if (!parsed) return { problem: `${JSON.stringify(words[i])} is not a version comparator` };
    result.push(...parsed);
  }
  return result;
}

/** The range, or why the text is not one. */
export function parseRange(text: string): VersionRange | { problem: string } {
  const range: VersionRange = [];
  for (const set of text.split("||")) {
    const parsed = parseSet(set);
    if ("problem" in parsed) return parsed;
    range.push(parsed);
  }
  if (range.flat().length > MAX_COMPARATORS)
    return { problem: `has more than ${MAX_COMPARATORS} comparators` };
  return range;
}

function holds(c: Comparator, v: Version): boolean {
  const order = compareVersions(v, c.version);
  switch (c.op) {
    case "<":
      return order < 0;
    case "<=":
      return order <= 0;
    case ">":
      return order > 0;
    case ">=":
      return order >= 0;
    case "=":
      return order === 0;
  }
}

const sameCore = (a: Version, b: Version) =>
  a.major === b.major && a.minor === b.minor && a.patch === b.patch;

/**
 * Whether `v` is in the range. As in node-semver, a prerelease is in a set only when a
 * comparator of that set names a prerelease of the same major.minor.patch: `^1.2.0` does not
 * take 1.3.0-rc.1.
 */
export function satisfies(v: Version, range: VersionRange): boolean {
  return range.some(set => {
    if (!set.every(c => holds(c, v))) return false;
    if (v.prerelease.length === 0) return true;
    return set.some(c => c.version.prerelease.length > 0 && sameCore(c.version, v));
  });
}
