// Turns rendered resources back into package files. A file whose documents are all
// unchanged keeps its exact bytes; in a changed file only the changed documents are
// re-serialised, the others are copied from the original text.
import { type Document } from "yaml";
import { parseYamlDocument } from "../krm/yaml-parse";
import { stringifyYamlFile } from "../krm/documents";
import type { KrmFileInfo, LoadedPackage, RenderItem } from "./package-tree";
import type { PackageFiles } from "./types";

export class OutputConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutputConflictError";
  }
}

/** The new file map: non-KRM files and Kptfiles as given, KRM files rebuilt from `items`. */
export function writePackageFiles(
  original: PackageFiles,
  loaded: LoadedPackage,
  items: Iterable<RenderItem>,
): PackageFiles {
  const out: PackageFiles = {};
  for (const [path, content] of Object.entries(original)) {
    if (!loaded.krmFiles.has(path)) out[path] = content;
  }
  for (const [path, fileItems] of groupByPath(items)) {
    const info = loaded.krmFiles.get(path);
    if (!info && original[path] !== undefined) {
      throw new OutputConflictError(
        `a function wrote a resource to ${JSON.stringify(path)}, which is not a KRM resource file of the package`,
      );
    }
    out[path] =
      info && isUnchangedFile(path, fileItems, info) ? original[path] : buildFile(fileItems, info);
  }
  return out;
}

function groupByPath(items: Iterable<RenderItem>): Map<string, RenderItem[]> {
  const groups = new Map<string, RenderItem[]>();
  for (const item of items) {
    const group = groups.get(item.path) ?? [];
    group.push(item);
    groups.set(item.path, group);
  }
  for (const group of groups.values()) group.sort((a, b) => a.index - b.index);
  return new Map([...groups.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

function isUnchanged(item: RenderItem): boolean {
  return !!item.origin && item.doc.toString() === item.origin.fingerprint;
}

function isUnchangedFile(path: string, items: RenderItem[], info: KrmFileInfo): boolean {
  return (
    items.length === info.documentCount &&
    items.every(
      (item, i) => item.origin?.file === path && item.origin.position === i && isUnchanged(item),
    )
  );
}

function buildFile(items: RenderItem[], info: KrmFileInfo | undefined): string {
  // kpt writes new files with kyaml's compact sequence style (`key:\n- a`).
  const compactSeq = info ? !usesWideSequences(items, info) : true;
  const pieces = items.map((item, position) => {
    let text =
      isUnchanged(item) && item.origin ? item.origin.text : serialize(item.doc, compactSeq);
    if (position === 0) text = text.replace(/^---[ \t]*\r?\n/, "");
    else if (!text.startsWith("---")) text = `---\n${text}`;
    return text.endsWith("\n") ? text : `${text}\n`;
  });
  const last = items[items.length - 1];
  const keepTrailer =
    info &&
    last.origin?.file === info.path &&
    last.origin.position === info.documentCount - 1 &&
    isUnchanged(last);
  return pieces.join("") + (keepTrailer ? info.trailer : "");
}

// Plain strings that YAML 1.1 readers (Go yaml.v2, kubectl) take for booleans or numbers —
// yes, on, 012 — are quoted when written, as kyaml does.
const YAML_11_COMPAT = parseYamlDocument("", { compat: "yaml-1.1" }).schema.compat;

function serialize(doc: Document, compactSeq: boolean): string {
  const copy = doc.clone();
  copy.schema.compat = YAML_11_COMPAT;
  return stringifyYamlFile({ docs: [copy], compactSeq });
}

/** kyaml keeps a file's sequence indent; "wide" is `key:\n  - a`, compact is the default. */
function usesWideSequences(items: RenderItem[], info: KrmFileInfo): boolean {
  if (info.compactSeq) return false;
  return items.some(
    item => item.origin && /^( *)[^\s#-][^\n]*:[ \t]*(#[^\n]*)?\n\1 {2}- /m.test(item.origin.text),
  );
}
