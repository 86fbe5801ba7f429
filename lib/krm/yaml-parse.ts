// Every YAML text the operator parses goes through here, because a tenant writes most of it
// (package files, function configs, a function's output). `yaml`'s composer, and our walkers
// after it, recurse once per level of nesting: a file nested thousands deep overflows the
// stack, and V8 can die outright (not throw) when the overflow lands in the compilation of a
// regular expression; 40 KB of `[` did that. The parser builds its syntax tree without
// recursion, so each document's tree is measured (with a loop) before it is composed, and the
// text is still parsed once.
import {
  Composer,
  CST,
  Document,
  LineCounter,
  Parser,
  YAMLParseError,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
} from "yaml";

/**
 * The deepest nesting accepted, counting every map, sequence and value: Kubernetes objects,
 * CRD schemas included, stay well below it, and it is far from what the stack holds.
 */
export const MAX_YAML_DEPTH = 256;

export type YamlParseOptions = ParseOptions & DocumentOptions & SchemaOptions;

/**
 * Every document of `text`, as `yaml`'s parseAllDocuments gives them, except that a text without
 * one gives one empty document (where the errors of a refused text are).
 */
export function parseYamlDocuments(text: string, options: YamlParseOptions = {}): Document[] {
  const lines = new LineCounter();
  const composer = new Composer(options);
  const docs = Array.from(composer.compose(checkedTokens(text, lines), true, text.length));
  for (const doc of docs) locate(doc, lines);
  return docs;
}

/** The one document of `text` (a second one is an error), as `yaml`'s parseDocument gives it. */
export function parseYamlDocument(text: string, options: YamlParseOptions = {}): Document {
  const lines = new LineCounter();
  const composer = new Composer(options);
  const [first, second] = composer.compose(checkedTokens(text, lines), true, text.length);
  if (second !== undefined) {
    const at = second.range?.[0] ?? 0;
    first.errors.push(
      new YAMLParseError([at, at + 1], "MULTIPLE_DOCS", "Source contains multiple documents"),
    );
  }
  return locate(first, lines);
}

/** The plain value of `text`'s one document (`yaml`'s parse); throws its first error. */
export function parseYamlValue(text: string): unknown {
  const doc = parseYamlDocument(text);
  if (doc.errors.length > 0) throw doc.errors[0];
  return doc.toJS();
}

/** The syntax tree's documents, each refused (as an error document) when nested too deep. */
function* checkedTokens(text: string, lines: LineCounter): Generator<CST.Token> {
  for (const token of new Parser(lines.addNewLine).parse(text)) {
    const deep = deeperThan(token, MAX_YAML_DEPTH);
    if (deep === undefined) {
      yield token;
      continue;
    }
    // The composer turns an error token into the document's error, and builds nothing deep.
    yield {
      type: "error",
      offset: deep,
      source: "",
      message: `YAML nested more than ${MAX_YAML_DEPTH} levels deep`,
    };
  }
}

/** The offset of a node nested deeper than `limit` in `root`, or undefined when none is. */
export function deeperThan(root: CST.Token, limit: number): number | undefined {
  const pending: Array<[CST.Token, number]> = [[root, 0]];
  while (pending.length > 0) {
    const [token, depth] = pending.pop() as [CST.Token, number];
    if (depth > limit) return token.offset;
    const next = depth + 1;
    if ("value" in token && token.value !== undefined && typeof token.value === "object")
      pending.push([token.value, next]);
    if (!("items" in token)) continue;
    for (const item of token.items) {
      if (item.key) pending.push([item.key, next]);
      if (item.value) pending.push([item.value, next]);
    }
  }
  return undefined;
}

/** Errors and warnings say where they are (line and column), as `yaml`'s own messages do. */
function locate(doc: Document, lines: LineCounter): Document {
  for (const problem of [...doc.errors, ...doc.warnings]) {
    if (problem.linePos !== undefined) continue;
    const start = lines.linePos(problem.pos[0]);
    problem.linePos = [start];
    problem.message += ` at line ${start.line}, column ${start.col}`;
  }
  return doc;
}
