// apply-setters (krm-functions-catalog): fields tagged with `# kpt-set: <pattern>` line
// comments get the pattern with `${name}` replaced by the configured setter values; a
// list tagged with `# kpt-set: ${name}` is replaced by the (YAML list) setter value.
import type { Document, Pair, Scalar, YAMLMap } from "yaml";
import { isSeq, YAMLSeq } from "yaml";
import { parseYamlDocument } from "../../krm/yaml-parse";
import { krmMeta } from "../../krm/documents";
import { compileTenantRegex, quoteRegex } from "../../regex";
import { keyName } from "../../krm/nodes";
import { errorResult, type ResultItem } from "../results";
import type { BuiltinFunction, FnItem } from "../types";
import { goList, quote, scalarText, setScalarText } from "../yaml-nodes";
import { configData } from "./config";
import { lineComment, walkDocument } from "./yaml-walk";

const SETTER_PREFIX = "# kpt-set: ";
const SETTER_REFERENCE = /\$\{([^}]*)\}/g;

type Setters = Record<string, string>;

export const applySetters: BuiltinFunction = ({ items, functionConfig }) => {
  const setters = configData(functionConfig);
  const results: ResultItem[] = [];
  try {
    for (const item of items) applyToItem(item, setters, results);
  } catch (error) {
    return {
      items,
      results: [errorResult(`failed to apply setters: ${(error as Error).message}`)],
    };
  }
  if (results.length === 0) results.push({ message: "no matches for input setter(s)" });
  return { items, results };
};

function applyToItem(item: FnItem, setters: Setters, results: ResultItem[]): void {
  const record = (path: string, current: string | undefined, value: string): void => {
    results.push(setterResult(item, path, current, value));
  };
  walkDocument(item.doc, {
    mapping: (map, path) => applyToLists(map, path, setters, record),
    scalar: (node, path) => applyToScalar(node, path, setters, record),
  });
}

type Recorder = (path: string, current: string | undefined, value: string) => void;

function applyToLists(map: YAMLMap, path: string, setters: Setters, record: Recorder): void {
  for (const pair of map.items as Pair<unknown, unknown>[]) {
    const seq = pair.value;
    if (!isSeq(seq)) continue;
    const comment = seq.flow ? lineComment(seq.comment) : lineComment((pair.key as Scalar).comment);
    const pattern = setterPattern(comment);
    if (!pattern || !mentionsSetter(pattern, setters)) continue;
    const names = references(pattern);
    if (names.length !== 1 || !pattern.startsWith("${") || !pattern.endsWith("}")) {
      throw new Error(`invalid setter pattern for array node: ${quote(pattern)}`);
    }
    const value = setters[names[0]] ?? "";
    const fieldPath = `${path}.${keyName(pair)}`.replace(/^\./, "");
    pair.value = listValue(value, comment.slice(1));
    (pair.key as Scalar).comment = value === "" ? null : comment.slice(1);
    record(fieldPath, undefined, value);
  }
}

/** An empty value gives `[] # kpt-set: ...` (comment on the value), otherwise a block list. */
function listValue(value: string, comment: string): YAMLSeq {
  if (value === "") {
    const seq = new YAMLSeq();
    seq.flow = true;
    seq.comment = comment;
    return seq;
  }
  const parsed = parseYamlDocument(value);
  if (parsed.errors.length > 0 || !isSeq(parsed.contents)) {
    throw new Error(`input to array setter must be an array of values, but found ${quote(value)}`);
  }
  parsed.contents.flow = false;
  return parsed.contents;
}

function applyToScalar(node: Scalar, path: string, setters: Setters, record: Recorder): void {
  const pattern = setterPattern(lineComment(node.comment));
  if (!pattern || !mentionsSetter(pattern, setters)) return;
  const current = scalarText(node);
  const derived = currentSetterValues(pattern, current);
  const value = pattern.replace(
    SETTER_REFERENCE,
    (whole, name: string) => setters[name] ?? derived[name] ?? whole,
  );
  const unresolved = value.match(SETTER_REFERENCE);
  if (unresolved) throw new Error(`values for setters ${goList(unresolved)} must be provided`);
  setScalarText(node, value);
  record(path.replace(/^\./, ""), current, value);
}

function setterPattern(comment: string): string {
  return comment.startsWith(SETTER_PREFIX) ? comment.slice(SETTER_PREFIX.length).trim() : "";
}

function references(pattern: string): string[] {
  return [...pattern.matchAll(SETTER_REFERENCE)].map(match => match[1]);
}

function mentionsSetter(pattern: string, setters: Setters): boolean {
  return Object.keys(setters).some(name => pattern.includes(`\${${name}}`));
}

/**
 * Values of setters the config does not give, recovered from the current field value:
 * pattern `my-app.${stage}.${tld}` against `my-app.dev.com` gives stage=dev, tld=com.
 */
function currentSetterValues(pattern: string, value: string): Record<string, string> {
  const names = references(pattern);
  // The pattern comes from the package's files: matched in linear time.
  const regex = compileTenantRegex(
    `^${pattern
      .split(/\$\{[^}]*\}/)
      .map(quoteRegex)
      .join("(.*)")}`,
  );
  const match = regex.exec(value);
  if (!match || match.length - 1 !== names.length) return {};
  const values: Record<string, string> = {};
  for (const [i, name] of names.entries()) {
    const group = match[i + 1];
    if (!group) return {};
    values[name] = group;
  }
  return values;
}

function setterResult(
  item: FnItem,
  path: string,
  current: string | undefined,
  value: string,
): ResultItem {
  const meta = krmMeta(item.doc as Document);
  return {
    message: `set field value to ${quote(value)}`,
    severity: "info",
    resourceRef: meta
      ? {
          apiVersion: meta.apiVersion,
          kind: meta.kind,
          name: meta.name,
          namespace: meta.namespace || undefined,
        }
      : undefined,
    field: { path, currentValue: current || undefined, proposedValue: value },
    file: { path: item.path },
  };
}
