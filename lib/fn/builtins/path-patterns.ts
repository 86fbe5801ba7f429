// Pattern matching for search-replace: `by-path` field paths (`*` one element, `**` any
// number, `a[*]` any list index) and `by-file-path` globs (`*`, `**`, `?`, `[class]`, `{a,b}`).

import { compileTenantRegex, TenantRegex } from "../../regex";

/** Whether the dotted field path matches the `by-path` pattern. */
export function fieldPathMatches(pattern: string, path: string): boolean {
  if (pattern === "") return false;
  return backtrack(path.replace(/^\./, "").split("."), pattern.split("."));
}

function backtrack(elements: string[], patterns: string[]): boolean {
  // reachable[j]: the first i elements match the first j patterns (dynamic programming).
  let reachable = patterns.map((_, j) => j === 0);
  reachable.push(false);
  for (let j = 1; j <= patterns.length; j++)
    if (patterns[j - 1] === "**") reachable[j] = reachable[j - 1];
  for (let i = 1; i <= elements.length; i++) {
    const next = new Array<boolean>(patterns.length + 1).fill(false);
    for (let j = 1; j <= patterns.length; j++) {
      const pattern = patterns[j - 1];
      if (pattern === "**") next[j] = next[j - 1] || reachable[j];
      else if (pattern === "*" || elementMatches(elements[i - 1], pattern))
        next[j] = reachable[j - 1];
    }
    reachable = next;
  }
  return reachable[patterns.length];
}

function elementMatches(element: string, pattern: string): boolean {
  if (element === pattern) return true;
  if (!element.includes("[")) return false;
  const [name, index] = element.split("[");
  const [patternName, patternIndex] = pattern.split("[");
  if (patternName !== "*" && patternName !== name) return false;
  return patternIndex !== undefined && (patternIndex === "*]" || patternIndex === index);
}

/** An absolute path (`a.b.c`): no wildcards or empty elements. */
export function isAbsolutePath(path: string): boolean {
  return path.split(".").every(element => element !== "" && !element.includes("*"));
}

/** doublestar-style glob over "/"-separated paths, matched in linear time (globs come from tenants). */
export function globToRegExp(glob: string): TenantRegex {
  return compileTenantRegex(`^${globPattern(glob)}$`);
}

function globPattern(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === "\\" && i + 1 < glob.length) {
      out += escape(glob[++i]);
    } else if (ch === "*" && glob[i + 1] === "*") {
      const slashAfter = glob[i + 2] === "/";
      out += slashAfter ? "(?:.*/)?" : ".*";
      i += slashAfter ? 2 : 1;
    } else if (ch === "*") {
      out += "[^/]*";
    } else if (ch === "?") {
      out += "[^/]";
    } else if (ch === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) throw new Error(`syntax error in pattern ${JSON.stringify(glob)}`);
      const body = glob.slice(i + 1, end).replace(/^!/, "^");
      out += `[${body.replace(/\\/g, "\\\\")}]`;
      i = end;
    } else if (ch === "{") {
      const end = glob.indexOf("}", i + 1);
      if (end < 0) throw new Error(`syntax error in pattern ${JSON.stringify(glob)}`);
      const alternatives = glob.slice(i + 1, end).split(",");
      out += `(?:${alternatives.map(globPattern).join("|")})`;
      i = end;
    } else {
      out += escape(ch);
    }
  }
  return out;
}

function escape(ch: string): string {
  return ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
