// search-replace (krm-functions-catalog): finds fields by value, value regex, field path
// and file path (matchers are ANDed) and optionally puts a new value and/or line comment.
import { isScalar, isSeq, Scalar, YAMLMap } from "yaml";
import { keyName } from "../../krm/nodes";
import type { ResultItem } from "../results";
import { errorResult } from "../results";
import type { BuiltinFunction, FnItem } from "../types";
import { ensureMapAt, quote, rootMap, scalarText, setScalarText } from "../yaml-nodes";
import { compileTenantRegex, regexProblem, TenantRegex } from "../../regex";
import { configData } from "./config";
import { fieldPathMatches, globToRegExp, isAbsolutePath } from "./path-patterns";
import { commentText, walkDocument } from "./yaml-walk";

const MATCHERS = [
  "by-value",
  "by-file-path",
  "by-value-regex",
  "by-path",
  "put-value",
  "put-comment",
];

interface Search {
  byValue: string;
  byValueRegex?: TenantRegex;
  byPath: string;
  byFilePath?: TenantRegex;
  putValue: string;
  putComment: string;
}

interface Match {
  file: string;
  path: string;
  value: string;
}

export const searchReplace: BuiltinFunction = ({ items, functionConfig }) => {
  const matches: Match[] = [];
  let search: Search;
  try {
    search = readConfig(configData(functionConfig));
    for (const item of items) searchItem(item, search, matches);
  } catch (error) {
    const message = `failed to perform search-replace operation: ${quote((error as Error).message)}`;
    return { items, results: [errorResult(message)] };
  }
  if (matches.length === 0) return { items, results: [{ message: "no matches" }] };
  const verb =
    search.putComment || search.putValue ? "Mutated field value to" : "Matched field value";
  const results: ResultItem[] = matches.map(match => ({
    message: `${verb} ${quote(match.value)}`,
    field: { path: match.path },
    file: { path: match.file },
  }));
  return { items, results };
};

function readConfig(data: Record<string, string>): Search {
  for (const key of Object.keys(data)) {
    if (!MATCHERS.includes(key)) {
      throw new Error(
        `invalid matcher ${quote(key)}, must be one of [${MATCHERS.map(quote).join(" ")}]`,
      );
    }
  }
  if (data["by-value"] && data["by-value-regex"]) {
    throw new Error('only one of ["by-value" "by-value-regex"] can be provided');
  }
  const regex = data["by-value-regex"];
  // Checked alone first, so the message names the pattern as written.
  const problem = regex ? regexProblem(regex) : undefined;
  if (problem) throw new Error(`by-value-regex: ${problem}`);
  return {
    byValue: data["by-value"] ?? "",
    // Documented: the regex matches the entire field value, without needing ^ and $.
    byValueRegex: regex ? compileTenantRegex(`^(?:${regex})$`) : undefined,
    byPath: data["by-path"] ?? "",
    byFilePath: data["by-file-path"] ? globToRegExp(data["by-file-path"]) : undefined,
    putValue: data["put-value"] ?? "",
    putComment: data["put-comment"] ?? "",
  };
}

function searchItem(item: FnItem, search: Search, matches: Match[]): void {
  if (search.byFilePath && !search.byFilePath.test(item.path)) return;
  if (
    isAbsolutePath(search.byPath) &&
    search.byPath !== "" &&
    !search.byPath.includes("[") &&
    !search.byValue &&
    !search.byValueRegex &&
    search.putValue
  ) {
    putValueByPath(item, search, matches);
    return;
  }
  walkDocument(item.doc, {
    mapping: (map, path) => commentLists(map, path, item, search, matches),
    scalar: (node, path) => matchScalar(node, path, item, search, matches),
  });
}

/** Sets the field at an absolute path in every resource, creating it when missing. */
function putValueByPath(item: FnItem, search: Search, matches: Match[]): void {
  const root = rootMap(item.doc);
  const path = search.byPath.split(".");
  const parent = root ? ensureMapAt(root, path.slice(0, -1)) : undefined;
  if (!parent) return;
  const key = path[path.length - 1];
  // A fresh plain scalar, as the catalog sets: the value's type is re-resolved.
  const existing = parent.get(key, true);
  const node = isScalar(existing) ? existing : new Scalar(null);
  node.type = "PLAIN";
  setScalarText(node, search.putValue);
  if (node !== existing) parent.set(key, node);
  matches.push({ file: item.path, path: search.byPath, value: search.putValue });
}

/** put-comment on a list field matched by path: the comment goes on its key. */
function commentLists(
  map: YAMLMap,
  path: string,
  item: FnItem,
  search: Search,
  matches: Match[],
): void {
  if (!search.putComment) return;
  for (const pair of map.items) {
    if (!isSeq(pair.value) || !fieldPathMatches(search.byPath, `${path}.${keyName(pair)}`))
      continue;
    (pair.key as Scalar).comment = commentText(search.putComment);
    const shown = `[${pair.value.items.map(element => (isScalar(element) ? scalarText(element) : String(element))).join(", ")}]`;
    pair.value.flow = false;
    matches.push({
      file: item.path,
      path: `${search.byPath} # ${search.putComment}`,
      value: shown,
    });
  }
}

function matchScalar(
  node: Scalar,
  path: string,
  item: FnItem,
  search: Search,
  matches: Match[],
): void {
  const value = scalarText(node);
  const pathMatch = fieldPathMatches(search.byPath, path);
  const valueMatch =
    (search.byValue !== "" && search.byValue === value) || !!search.byValueRegex?.test(value);
  const matched =
    (valueMatch && pathMatch) ||
    (valueMatch && !search.byPath) ||
    (pathMatch && !search.byValue && !search.byValueRegex);
  if (!matched) return;
  if (search.putComment)
    node.comment = commentText(resolvePattern(value, search.byValueRegex, search.putComment));
  if (search.putValue)
    setScalarText(node, resolvePattern(value, search.byValueRegex, search.putValue));
  matches.push({ file: item.path, path: path.replace(/^\./, ""), value: scalarText(node) });
}

/** Replaces `${n}` with capture group n of the by-value-regex match. */
function resolvePattern(value: string, regex: TenantRegex | undefined, pattern: string): string {
  if (!regex) return pattern;
  const groups = regex.exec(value) ?? [];
  let resolved = pattern;
  groups.forEach((group, i) => {
    if (i > 0) resolved = resolved.split(`\${${i}}`).join(group ?? "");
  });
  if (/\$\{[0-9]+\}/.test(resolved)) throw new Error("unable to resolve capture groups");
  return resolved;
}
