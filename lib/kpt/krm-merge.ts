// Resource-level 3-way merge of the KRM files of one package (kpt resource-merge): pairs up
// objects by identity, applies kpt's add/delete rules, merges fields with merge3 and writes
// every object back to its local file (new ones to upstream's file).
import type { Document } from "yaml";
import {
  apiGroup,
  isEmptyDocument,
  krmMeta,
  krmObjects,
  stringifyYamlFile,
  type YamlFile,
} from "../krm/documents";
import { conflict, fieldConflictSink } from "./conflicts";
import { sameResource } from "./equivalence";
import { kubernetesListKeys } from "./merge-keys";
import { merge3 } from "./merge3";
import { identityKey, resourceIdentity, resourceRef } from "./resource-id";
import { type MergeConflict, UpgradeError } from "./types";

/** One object in one version: its file, its position and its document. */
interface Located {
  file: string;
  doc: Document;
}

interface Version {
  files: Map<string, YamlFile>;
  byKey: Map<string, Located>;
}

type FileSet = Readonly<Record<string, string>>;

/** Parsed KRM files of one version (see parseKrmFile with keepCommentDocs); they are edited in place. */
export type KrmFiles = ReadonlyMap<string, YamlFile>;

/**
 * Merges the KRM files of one package; `localText` is the local files' text (kept byte for
 * byte where nothing changed). Returns the local package's new KRM files.
 */
export function mergeKrmFiles(
  original: KrmFiles,
  updated: KrmFiles,
  local: KrmFiles,
  localText: FileSet,
  conflicts: MergeConflict[],
): Record<string, string> {
  const parsed = [original, updated, local].map(indexVersion);
  const duplicates = duplicateIds(parsed);
  const [o, u, d] = parsed.map(version => keyed(version, duplicates));
  const baseline = new Map([...d.files].map(([path, file]) => [path, stringifyYamlFile(file)]));
  const placed = new Map<Document, string>();
  for (const key of new Set([...o.byKey.keys(), ...u.byKey.keys(), ...d.byKey.keys()])) {
    const result = mergeOne(o.byKey.get(key), u.byKey.get(key), d.byKey.get(key), conflicts);
    if (result) placed.set(result.doc, result.file);
  }
  return writeFiles(d, u, placed, baseline, localText);
}

interface ParsedVersion {
  files: Map<string, YamlFile>;
  objects: { file: string; doc: Document; id: string }[];
}

function indexVersion(files: KrmFiles): ParsedVersion {
  const out: ParsedVersion = { files: new Map(), objects: [] };
  for (const path of [...files.keys()].sort()) {
    const file = files.get(path) as YamlFile;
    out.files.set(path, file);
    for (const doc of krmObjects(file)) {
      const identity = resourceIdentity(doc);
      if (identity) out.objects.push({ file: path, doc, id: identityKey(identity) });
    }
  }
  return out;
}

/** Identities that occur twice in some version are told apart by file (kpt also matches on path). */
function duplicateIds(versions: readonly ParsedVersion[]): Set<string> {
  const duplicates = new Set<string>();
  for (const version of versions) {
    const seen = new Set<string>();
    for (const object of version.objects) {
      if (seen.has(object.id)) duplicates.add(object.id);
      seen.add(object.id);
    }
  }
  return duplicates;
}

function keyed(version: ParsedVersion, duplicates: Set<string>): Version {
  const byKey = new Map<string, Located>();
  for (const object of version.objects) {
    const key = duplicates.has(object.id) ? `${object.id}@${object.file}` : object.id;
    if (byKey.has(key)) {
      throw new UpgradeError(
        `found duplicate resource ${object.id} in file ${object.file}`,
        "InvalidPackage",
        [object.file],
      );
    }
    byKey.set(key, { file: object.file, doc: object.doc });
  }
  return { files: version.files, byKey };
}

/** kpt's handling strategy per resource, then the field merge. */
function mergeOne(
  o: Located | undefined,
  u: Located | undefined,
  d: Located | undefined,
  conflicts: MergeConflict[],
): Located | undefined {
  if (!d) {
    if (u && !o) return u; // added upstream
    if (o && u && !sameResource(o.doc, u.doc)) {
      conflicts.push(
        conflict("DeletedLocallyModifiedUpstream", o.file, "local", {
          resource: resourceRef(u.doc),
        }),
      );
    }
    return undefined; // deleted locally (or on both sides): stays deleted
  }
  if (!u) {
    if (!o) return d; // added locally
    if (sameResource(o.doc, d.doc)) return undefined; // deleted upstream, untouched locally
    conflicts.push(
      conflict("DeletedUpstreamModifiedLocally", d.file, "local", { resource: resourceRef(d.doc) }),
    );
    return d;
  }
  const meta = krmMeta(d.doc) ?? krmMeta(u.doc);
  const listKeys = kubernetesListKeys(apiGroup(meta?.apiVersion ?? ""), meta?.kind ?? "");
  const onConflict = fieldConflictSink(conflicts, d.file, resourceRef(d.doc));
  const merged = merge3(d.doc.contents, o?.doc.contents, u.doc.contents, { listKeys, onConflict });
  if (merged === undefined) return undefined;
  d.doc.contents = merged as Document["contents"];
  const movedUpstream = o !== undefined && d.file === o.file && u.file !== o.file;
  return { file: movedUpstream ? u.file : d.file, doc: d.doc };
}

/** Local files keep their document order; upstream-added objects are appended in upstream order. */
function writeFiles(
  d: Version,
  u: Version,
  placed: Map<Document, string>,
  baseline: Map<string, string>,
  local: FileSet,
): Record<string, string> {
  const outputs = new Map<string, YamlFile>();
  const target = (path: string, like: YamlFile | undefined): YamlFile => {
    let file = outputs.get(path);
    if (!file) outputs.set(path, (file = { docs: [], compactSeq: like?.compactSeq ?? false }));
    return file;
  };
  for (const [path, file] of d.files) {
    for (const doc of file.docs) {
      if (isEmptyDocument(doc) || placed.get(doc) === path) target(path, file).docs.push(doc);
      if (placed.get(doc) === path) placed.delete(doc);
    }
  }
  for (const file of u.files.values()) {
    for (const doc of file.docs) {
      const destination = placed.get(doc);
      if (destination === undefined) continue;
      target(destination, d.files.get(destination) ?? file).docs.push(doc);
      placed.delete(doc);
    }
  }
  for (const [doc, path] of placed) target(path, d.files.get(path)).docs.push(doc); // local objects moved upstream
  const result: Record<string, string> = {};
  for (const [path, file] of outputs) {
    if (krmObjects(file).length === 0) continue;
    const text = stringifyYamlFile(file);
    result[path] = text === baseline.get(path) ? local[path] : text;
  }
  return result;
}
