// The names a package's files may have. Keys of PackageRevisionResources.spec.resources become
// git tree entries: a NUL corrupts the tree, `.git` (in any case: case-insensitive file systems)
// or `..` turns a checkout into a write outside the package, control characters forge log
// lines and messages. Admission and the controller (before every git write) share this rule.

/** Longest file name accepted, in UTF-8 bytes (Linux PATH_MAX). */
export const MAX_FILE_NAME_BYTES = 4096;

/** Offending names listed in one message; the rest are counted. */
const MAX_LISTED = 10;
/** Characters of one name shown in a message. */
const MAX_SHOWN_CHARS = 120;

// Cc: C0, DEL, C1; Cf: invisible formatting (bidi overrides, zero-width joiners: names that look
// like others, and that macOS ignores when it compares `.git`); Zl/Zp: line separators; Cs: a
// lone surrogate, which is not UTF-8 at all.
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** `.git` as Windows and macOS also read it: any case, trailing dots or spaces, 8.3 `git~1`. */
const isGitDir = (segment: string): boolean => {
  const lower = segment.toLowerCase();
  return lower.replace(/[. ]+$/, "") === ".git" || lower === "git~1";
};

/** Why `name` cannot be a package file name, or undefined when it can. */
export function fileNameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (CONTROL.test(name)) return "contains a control or invisible character";
  if (Buffer.byteLength(name, "utf8") > MAX_FILE_NAME_BYTES)
    return `is longer than ${MAX_FILE_NAME_BYTES} bytes`;
  if (name.includes("\\")) return "contains a backslash";
  if (name.startsWith("/")) return "is an absolute path";
  const segments = name.split("/");
  if (segments.includes("..")) return 'has a ".." segment';
  if (segments.some(isGitDir)) return 'has a ".git" component';
  if (segments.includes(".")) return 'has a "." segment';
  if (segments.includes("")) return "has an empty segment or a trailing slash";
  return undefined;
}

/** A name as a message can show it: quoted, every control or invisible character escaped. */
export function printableName(name: string): string {
  const shown = name.length > MAX_SHOWN_CHARS ? `${name.slice(0, MAX_SHOWN_CHARS)}…` : name;
  const escaped = [...shown]
    .map(ch => {
      if (ch === '"' || ch === "\\") return `\\${ch}`;
      if (!CONTROL.test(ch)) return ch;
      const code = ch.codePointAt(0) ?? 0;
      return `\\u${code.toString(16).padStart(4, "0")}`;
    })
    .join("");
  return `"${escaped}"`;
}

/** Each unsafe name with its reason, and names that are both a file and a directory. */
export function unsafeFileNames(names: Iterable<string>): { name: string; problem: string }[] {
  const all = [...names];
  const found: { name: string; problem: string }[] = [];
  for (const name of all) {
    const problem = fileNameProblem(name);
    if (problem) found.push({ name, problem });
  }
  // `a.yaml` and `a.yaml/b.yaml` cannot both be in one git tree.
  const files = new Set(all);
  for (const name of all) {
    if (fileNameProblem(name)) continue;
    const parts = name.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (files.has(dir)) {
        found.push({ name, problem: `is below ${printableName(dir)}, which is a file` });
        break;
      }
    }
  }
  return found;
}

/**
 * One message naming every unsafe file name (the first few, then a count), or undefined when
 * all are safe. `field` is what the names are the keys of, e.g. `spec.resources`.
 */
export function fileNamesProblem(names: Iterable<string>, field: string): string | undefined {
  const unsafe = unsafeFileNames(names);
  if (unsafe.length === 0) return undefined;
  const listed = unsafe
    .slice(0, MAX_LISTED)
    .map(u => `${printableName(u.name)} ${u.problem}`)
    .join(", ");
  const more = unsafe.length > MAX_LISTED ? ` and ${unsafe.length - MAX_LISTED} more` : "";
  return `${field} has unsafe file names: ${listed}${more}`;
}
