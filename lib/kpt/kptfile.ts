// The one Kptfile (kpt.dev/v1) parser, and the Kptfile as an editable Document: name,
// upstream/upstreamLock, status. Every reader (kpt merge, the git store, render, the
// PackageRevision's gates) parses with parseKptfile and reads its own fields from the result.
// Edits keep comments; new top-level sections go where kpt's struct order puts them.
import { Document, isMap, isScalar, YAMLMap } from "yaml";
import { errorMessage } from "../errors";
import { parseYamlFile, stringifyYamlFile, type YamlFile } from "../krm/documents";
import { deleteField, ensureMap, getField, setField, toNode } from "../krm/nodes";
import { KPTFILE } from "./kptfile-name";
import type { GitLock, UpdateStrategy } from "./types";

export { KPTFILE, isKptfilePath } from "./kptfile-name";
export const KPTFILE_API_VERSION = "kpt.dev/v1";

/** Top-level field order of kpt's KptFile struct. */
export const KPTFILE_ORDER = [
  "apiVersion",
  "kind",
  "metadata",
  "upstream",
  "upstreamLock",
  "info",
  "pipeline",
  "inventory",
  "status",
];

/** A parsed Kptfile: the document plus the formatting of its file. */
export interface Kptfile {
  file: YamlFile;
  doc: Document;
  root: YAMLMap;
}

/** Why a Kptfile cannot be read; the message starts with its path in the package. */
export class KptfileError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "KptfileError";
  }
}

export interface ParseKptfileOptions {
  /** Refuse an object whose `kind` is not Kptfile (the store tells a package by it). */
  requireKind?: boolean;
}

/**
 * Parses a Kptfile: one YAML document (empty ones around it are dropped) holding a mapping.
 * Throws KptfileError. Callers that must not throw catch it and keep its message.
 */
export function parseKptfile(
  text: string,
  path = KPTFILE,
  options: ParseKptfileOptions = {},
): Kptfile {
  let file: YamlFile;
  try {
    file = parseYamlFile(text);
  } catch (error) {
    throw new KptfileError(path, `${path} does not parse: ${errorMessage(error)}`);
  }
  if (file.docs.length > 1)
    throw new KptfileError(path, `${path} holds ${file.docs.length} YAML documents, expected one`);
  const doc = file.docs[0];
  if (!doc || !isMap(doc.contents)) throw new KptfileError(path, `${path} is not a YAML mapping`);
  const kind: unknown = doc.contents.get("kind");
  if (options.requireKind && kind !== "Kptfile") {
    throw new KptfileError(
      path,
      `${path} has kind ${JSON.stringify(kind ?? null)}, expected "Kptfile"`,
    );
  }
  return { file, doc, root: doc.contents };
}

/** A minimal Kptfile, as `kpt pkg get` writes when the upstream has none. */
export function newKptfile(name: string): Kptfile {
  return parseKptfile(
    `apiVersion: ${KPTFILE_API_VERSION}\nkind: Kptfile\nmetadata:\n  name: ${JSON.stringify(name)}\n`,
  );
}

export function stringifyKptfile(kptfile: Kptfile): string {
  return stringifyYamlFile(kptfile.file);
}

export function kptfileName(kptfile: Kptfile): string {
  const name = getField(getField(kptfile.root, "metadata"), "name");
  return isScalar(name) && name.value !== null ? String(name.value) : "";
}

export function setKptfileName(kptfile: Kptfile, name: string): void {
  setField(ensureMap(kptfile.root, "metadata", KPTFILE_ORDER), "name", toNode(name), [
    "name",
    "namespace",
  ]);
}

/** Sets a top-level section in kpt's order (replacing it in place when present), or removes it. */
export function setSection(kptfile: Kptfile, key: string, value: unknown): void {
  if (value === undefined) deleteField(kptfile.root, key);
  else setField(kptfile.root, key, value, KPTFILE_ORDER);
}

/** Records where the package comes from, as `kpt pkg get` / `kpt pkg update` do. */
export function setUpstream(kptfile: Kptfile, lock: GitLock, strategy: UpdateStrategy): void {
  const { repo, directory, ref, commit } = lock;
  setSection(
    kptfile,
    "upstream",
    toNode({ type: "git", git: { repo, directory, ref }, updateStrategy: strategy }),
  );
  setSection(
    kptfile,
    "upstreamLock",
    toNode({ type: "git", git: { repo, directory, ref, commit } }),
  );
}

/** Drops `status` (Porch strips it before a fast-forward; render results are stale after any upgrade). */
export function removeStatus(kptfile: Kptfile): void {
  setSection(kptfile, "status", undefined);
}
