// Multi-document YAML files as comment-preserving `yaml` Documents, plus the identity
// fields every KRM object has. Shared by lib/kpt (merge/clone) and anything else that
// must edit package files without losing comments or field order.
import { Document, isMap, isScalar, isSeq } from "yaml";
import { parseYamlDocuments } from "./yaml-parse";
import { isKptfilePath } from "../kpt/kptfile-name";
import { duplicateKey } from "./unique-keys";

/** The documents of one YAML file and the sequence style it was written in. */
export interface YamlFile {
  docs: Document[];
  /** true when block sequences sit at the same indent as their key (`key:\n- a`). */
  compactSeq: boolean;
}

/** apiVersion/kind/name/namespace of a KRM object; namespace is "" when unset. */
export interface KrmMeta {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
}

export class YamlParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "YamlParseError";
  }
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Files kpt reads as KRM: the Kptfile and *.yaml / *.yml. */
export function isKrmPath(path: string): boolean {
  return isKptfilePath(path) || path.endsWith(".yaml") || path.endsWith(".yml");
}

/** Parses every document; throws YamlParseError on any syntax error. Empty documents are dropped. */
export function parseYamlFile(text: string): YamlFile {
  // Keys checked in one pass below: the parser's own check is quadratic in a map's size.
  const docs = parseYamlDocuments(text, { uniqueKeys: false });
  const kept: Document[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new YamlParseError(doc.errors[0].message);
    if (duplicateKey(doc.contents) !== undefined)
      throw new YamlParseError("Map keys must be unique");
    keepKeyLineComments(doc.contents, text);
    if (!isEmptyDocument(doc) || hasComments(doc)) kept.push(doc);
  }
  return { docs: kept, compactSeq: usesCompactSequences(text) };
}

/** Serialises documents, separating them with `---`; long lines are never folded. */
export function stringifyYamlFile(file: YamlFile): string {
  const options = { lineWidth: 0, indentSeq: !file.compactSeq, flowCollectionPadding: false };
  return file.docs
    .map((doc, index) => {
      const text = isEmptyDocument(doc) ? commentOnlyText(doc) : doc.toString(options);
      return index > 0 && !text.startsWith("---") ? `---\n${text}` : text;
    })
    .join("");
}

/** A document without an object: nothing, or only comments (e.g. `---\n# note`). */
export function isEmptyDocument(doc: Document): boolean {
  return (
    doc.contents === null ||
    (isScalar(doc.contents) && doc.contents.value === null && !doc.contents.source)
  );
}

function commentOnlyText(doc: Document): string {
  const contents = isScalar(doc.contents) ? doc.contents : undefined;
  const comments = [
    doc.commentBefore,
    contents?.commentBefore,
    contents?.comment,
    doc.comment,
  ].filter((c): c is string => !!c);
  return comments
    .flatMap(comment => comment.split("\n"))
    .map(line => `#${line}\n`)
    .join("");
}

/** Reads the identity fields of a KRM object, or undefined when the document is not one. */
export function krmMeta(doc: Document): KrmMeta | undefined {
  const root = doc.contents;
  if (!isMap(root)) return undefined;
  const apiVersion = root.get("apiVersion");
  const kind = root.get("kind");
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !apiVersion || !kind)
    return undefined;
  const metadata = root.get("metadata");
  const name = isMap(metadata) ? metadata.get("name") : undefined;
  const namespace = isMap(metadata) ? metadata.get("namespace") : undefined;
  return {
    apiVersion,
    kind,
    name: typeof name === "string" ? name : "",
    namespace: typeof namespace === "string" ? namespace : "",
  };
}

/** The API group of an apiVersion ("apps/v1" → "apps", "v1" → ""). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/**
 * Parses a file whose every non-empty document is a KRM object; undefined when the file is
 * not valid YAML or holds a document that is not KRM (such files are handled as opaque).
 * `docs` holds the objects only, unless `keepCommentDocs` keeps comment-only documents in
 * place (for callers that rewrite the file and must not lose e.g. a license header).
 */
export function parseKrmFile(
  text: string,
  options: { keepCommentDocs?: boolean } = {},
): YamlFile | undefined {
  let file: YamlFile;
  try {
    file = parseYamlFile(text);
  } catch (error) {
    if (error instanceof YamlParseError) return undefined;
    throw error;
  }
  const objects = krmObjects(file);
  if (objects.length === 0 || objects.some(doc => krmMeta(doc) === undefined)) return undefined;
  return options.keepCommentDocs ? file : { docs: objects, compactSeq: file.compactSeq };
}

/** The documents that hold an object (comment-only documents are skipped). */
export function krmObjects(file: YamlFile): Document[] {
  return file.docs.filter(doc => !isEmptyDocument(doc));
}

function hasComments(doc: Document): boolean {
  const contents = isScalar(doc.contents) ? doc.contents : undefined;
  return !!(doc.commentBefore || doc.comment || contents?.commentBefore || contents?.comment);
}

function usesCompactSequences(text: string): boolean {
  // A key line followed by a dash at the same indent is kyaml's "compact" style.
  return /^( *)[^\s#-][^\n]*:[ \t]*\n\1- /m.test(text);
}

/**
 * `yaml` moves a comment written after `key:` (when the value is a block collection) to the
 * first line inside the value. kpt's `metadata: # kpt-merge: ns/name` marker must stay on
 * the key line, so put such comments back on the key.
 */
function keepKeyLineComments(node: unknown, text: string): void {
  if (isSeq(node)) {
    for (const item of node.items) keepKeyLineComments(item, text);
    return;
  }
  if (!isMap(node)) return;
  for (const pair of node.items) {
    const value = pair.value;
    if (!isMap(value) && !isSeq(value)) continue;
    if (value.commentBefore && isScalar(pair.key) && pair.key.range && value.range) {
      const between = text.slice(pair.key.range[1], value.range[0]);
      if (/^[ \t]*:[ \t]*#/.test(between)) {
        const lines = value.commentBefore.split("\n");
        pair.key.comment = lines[0];
        value.commentBefore = lines.slice(1).join("\n") || undefined;
      }
    }
    keepKeyLineComments(value, text);
  }
}
