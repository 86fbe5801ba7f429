// The package as kpt sees it: a tree of packages (directories holding a Kptfile) and the
// KRM resources each one owns. Every resource remembers the exact text it was read from,
// so unchanged documents can be written back byte for byte.
import type { Document } from "yaml";
import { isKptfilePath, KPTFILE } from "../kpt/kptfile-name";
import { isKrmPath, parseKrmFile } from "../krm/documents";
import type { PackageFiles } from "./types";

export interface PackageNode {
  /** Directory relative to the root package; "" for the root. */
  dir: string;
  kptfilePath: string;
  /** Direct subpackages, in path order (kpt hydrates them alphabetically). */
  children: PackageNode[];
}

/** Where a resource was read from and what it looked like then. */
export interface ItemOrigin {
  file: string;
  /** Position of the document among the file's documents. */
  position: number;
  /** The document's original text, including its `---` marker and leading comments. */
  text: string;
  /** doc.toString() at load time; a different value later means the document changed. */
  fingerprint: string;
}

/** A resource during rendering; `path` is relative to the root package. */
export interface RenderItem {
  doc: Document;
  path: string;
  index: number;
  origin?: ItemOrigin;
}

export interface KrmFileInfo {
  path: string;
  compactSeq: boolean;
  /** Text after the last document (trailing comments), kept when the file is unchanged. */
  trailer: string;
  documentCount: number;
}

export interface LoadedPackage {
  root: PackageNode;
  /** All KRM resources of all packages, excluding Kptfiles. */
  items: RenderItem[];
  krmFiles: Map<string, KrmFileInfo>;
}

/** Builds the package tree and reads every KRM file; throws when the root Kptfile is missing. */
export function loadPackage(files: PackageFiles): LoadedPackage {
  if (files[KPTFILE] === undefined) {
    throw new Error(`the package has no root ${KPTFILE}; render needs a kpt package`);
  }
  const root = buildTree(files);
  const items: RenderItem[] = [];
  const krmFiles = new Map<string, KrmFileInfo>();
  for (const path of Object.keys(files).sort()) {
    if (!isResourceFile(path)) continue;
    const loaded = loadKrmFile(path, files[path]);
    if (!loaded) continue;
    krmFiles.set(path, loaded.info);
    items.push(...loaded.items);
  }
  return { root, items, krmFiles };
}

/** The deepest package directory containing `path`. */
export function owningPackage(root: PackageNode, path: string): PackageNode {
  for (const child of root.children) {
    if (isWithin(path, child.dir)) return owningPackage(child, path);
  }
  return root;
}

export function isWithin(path: string, dir: string): boolean {
  return dir === "" || path.startsWith(`${dir}/`);
}

/** `path` relative to package directory `dir` (which must contain it). */
export function relativeTo(dir: string, path: string): string {
  return dir === "" ? path : path.slice(dir.length + 1);
}

export function joinPath(dir: string, path: string): string {
  return dir === "" ? path : `${dir}/${path}`;
}

/** Files kpt reads as resources: *.yaml / *.yml outside hidden directories, not Kptfiles. */
function isResourceFile(path: string): boolean {
  if (isKptfilePath(path) || !isKrmPath(path)) return false;
  return !path.split("/").some(segment => segment.startsWith("."));
}

function loadKrmFile(
  path: string,
  text: string,
): { info: KrmFileInfo; items: RenderItem[] } | undefined {
  const parsed = parseKrmFile(text);
  if (!parsed) return undefined;
  const items: RenderItem[] = [];
  let start = 0;
  parsed.docs.forEach((doc, position) => {
    const end = doc.range?.[2] ?? text.length;
    const origin = {
      file: path,
      position,
      text: text.slice(start, end),
      fingerprint: doc.toString(),
    };
    items.push({ doc, path, index: position, origin });
    start = end;
  });
  const info = {
    path,
    compactSeq: parsed.compactSeq,
    trailer: text.slice(start),
    documentCount: items.length,
  };
  return { info, items };
}

function buildTree(files: PackageFiles): PackageNode {
  const dirs = Object.keys(files)
    .filter(isKptfilePath)
    .map(path => path.slice(0, Math.max(0, path.length - KPTFILE.length - 1)))
    .filter(dir => !dir.split("/").some(segment => segment.startsWith(".")))
    .sort();
  const root: PackageNode = { dir: "", kptfilePath: KPTFILE, children: [] };
  for (const dir of dirs) {
    if (dir === "") continue;
    const parent = deepestAncestor(root, dir);
    parent.children.push({ dir, kptfilePath: joinPath(dir, KPTFILE), children: [] });
  }
  return root;
}

function deepestAncestor(node: PackageNode, dir: string): PackageNode {
  for (const child of node.children) {
    if (dir.startsWith(`${child.dir}/`)) return deepestAncestor(child, dir);
  }
  return node;
}
