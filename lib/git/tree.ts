// Tree editing on top of GitClient: build a package tree from a file map, find or replace the
// subtree at a package path. Commits are built without a worktree, so only the trees along the
// package path are rewritten; everything else on the branch keeps its object ids.
import type { GitClient, TreeEntry } from "./client";
import { GitStoreError } from "./errors";
import { fileNameProblem, printableName } from "../packages/file-names";
import {
  LISTING_BYTES_PER_ENTRY,
  ObjectTooLargeError,
  checkFileName,
  checkPackageFiles,
  decodeFile,
  fileTooLarge,
  overLimit,
  treeTooLarge,
  type GitContentLimits,
} from "./content-limits";

const TREE_MODE = "040000";
const FILE_MODE = "100644";

/** Git orders tree entries by name, comparing directories as if they ended in "/". */
function sortEntries(entries: TreeEntry[]): TreeEntry[] {
  const key = (e: TreeEntry) => (e.type === "tree" ? `${e.path}/` : e.path);
  return [...entries].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The last guard before a name becomes a tree entry (callers check the whole set earlier). */
function checkFilePath(path: string): string[] {
  const problem = fileNameProblem(path);
  if (problem) {
    throw new GitStoreError(
      "InvalidArgument",
      `invalid file path ${printableName(path)} in package resources: it ${problem}`,
    );
  }
  return path.split("/");
}

interface DirNode {
  files: Map<string, Buffer>;
  dirs: Map<string, DirNode>;
}

/** Writes blobs and trees for a file map; returns the root tree oid. */
export async function buildTree(client: GitClient, files: Record<string, string>): Promise<string> {
  const root: DirNode = { files: new Map(), dirs: new Map() };
  for (const [path, content] of Object.entries(files)) {
    const parts = checkFilePath(path);
    let node = root;
    for (const dir of parts.slice(0, -1)) {
      if (node.files.has(dir))
        throw new GitStoreError(
          "InvalidArgument",
          `${printableName(path)} is below a file of the same name`,
        );
      node =
        node.dirs.get(dir) ?? node.dirs.set(dir, { files: new Map(), dirs: new Map() }).get(dir)!;
    }
    const name = parts[parts.length - 1];
    if (node.dirs.has(name))
      throw new GitStoreError(
        "InvalidArgument",
        `${printableName(path)} is both a file and a directory`,
      );
    node.files.set(name, Buffer.from(content, "utf8"));
  }
  return writeDir(client, root);
}

async function writeDir(client: GitClient, node: DirNode): Promise<string> {
  const names = [...node.files.keys()];
  const oids = await client.writeBlobs(names.map(n => node.files.get(n)!));
  const entries: TreeEntry[] = names.map((n, i) => ({
    mode: FILE_MODE,
    path: n,
    oid: oids[i],
    type: "blob",
  }));
  for (const [name, child] of node.dirs) {
    entries.push({ mode: TREE_MODE, path: name, oid: await writeDir(client, child), type: "tree" });
  }
  return client.writeTree(sortEntries(entries));
}

/** Oid of the tree at `path` below `rootTree`, or undefined when there is none. */
export async function subtreeAt(
  client: GitClient,
  rootTree: string,
  path: string,
): Promise<string | undefined> {
  let oid = rootTree;
  for (const name of path.split("/").filter(p => p !== "")) {
    const entry = (await client.readTree(oid)).find(e => e.path === name);
    if (entry?.type !== "tree") return undefined;
    oid = entry.oid;
  }
  return oid;
}

/**
 * Returns a new root tree where `path` holds `subtree` (a tree oid), or is removed when `subtree`
 * is null. Directories left empty by a removal disappear, as git cannot store empty trees.
 */
export async function replaceSubtree(
  client: GitClient,
  rootTree: string | null,
  path: string,
  subtree: string | null,
): Promise<string> {
  const parts = path.split("/").filter(p => p !== "");
  if (parts.length === 0)
    throw new GitStoreError("InvalidArgument", "package path must not be empty");
  // A package name or repository directory is part of every path written below it.
  const problem = fileNameProblem(parts.join("/"));
  if (problem)
    throw new GitStoreError(
      "InvalidArgument",
      `invalid package path ${printableName(path)}: it ${problem}`,
    );
  const result = await replaceIn(client, rootTree, parts, subtree);
  return result ?? client.writeTree([]);
}

async function replaceIn(
  client: GitClient,
  tree: string | null,
  parts: string[],
  subtree: string | null,
): Promise<string | null> {
  const entries = tree === null ? [] : await client.readTree(tree);
  const [name, ...rest] = parts;
  const existing = entries.find(e => e.path === name);
  if (existing !== undefined && existing.type !== "tree" && rest.length > 0) {
    throw new GitStoreError(
      "InvalidArgument",
      `"${name}" is a file, not a directory, on the package path`,
    );
  }
  const child =
    rest.length === 0
      ? subtree
      : await replaceIn(client, existing?.type === "tree" ? existing.oid : null, rest, subtree);
  const kept = entries.filter(e => e.path !== name);
  if (child !== null) kept.push({ mode: TREE_MODE, path: name, oid: child, type: "tree" });
  if (kept.length === 0) return null;
  return client.writeTree(sortEntries(kept));
}

/**
 * Every entry below a tree, recursively (trees included), depth first as `git ls-tree -r -t`
 * lists them, paths relative to it. Read tree object by tree object through the client (the
 * CLI's long-lived cat-file reader: no process per listing), counted as it goes (about 64 bytes
 * and the path an entry, as ls-tree prints them) and refused past the entry limit.
 */
export async function walkTree(
  client: Pick<GitClient, "readTree">,
  treeOid: string,
  limits: GitContentLimits,
): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  let bytes = 0;
  const walk = async (oid: string, prefix: string): Promise<void> => {
    for (const e of await client.readTree(oid)) {
      const path = `${prefix}${e.path}`;
      bytes += 64 + path.length;
      if (
        out.length >= limits.maxTreeEntries ||
        bytes > limits.maxTreeEntries * LISTING_BYTES_PER_ENTRY
      )
        throw treeTooLarge(treeOid, limits);
      out.push({ ...e, path });
      if (e.type === "tree") await walk(e.oid, `${path}/`);
    }
  };
  await walk(treeOid, "");
  return out;
}

/** Blobs read at once: what a package's read may hold beyond its per-package limit. */
const BLOB_READ_BATCH = 16;

/**
 * All files below a tree as path → text, kept byte for byte. Over a content limit, or a file
 * that is not UTF-8, throws ContentTooLarge or NotUTF8 naming the file: never a package with
 * files left out. The file count is checked before any blob is read, the sizes as they are read.
 */
export async function readFiles(
  client: GitClient,
  treeOid: string,
  limits: GitContentLimits,
): Promise<Record<string, string>> {
  const listing = (await client.listTree(treeOid)).filter(e => e.type === "blob");
  checkPackageFiles(listing, limits);
  for (const { path } of listing) checkFileName(path);
  const blobs = new Map<string, Buffer>();
  // The listing need not give sizes (a tree object holds none): blobs are read a batch at a
  // time and the package's total checked as they come, so a package over its limit is never
  // held whole.
  const oids = [...new Set(listing.map(f => f.oid))];
  let total = 0;
  for (let i = 0; i < oids.length; i += BLOB_READ_BATCH) {
    if (total > limits.maxPackageBytes)
      throw new GitStoreError(
        "ContentTooLarge",
        `the package's files are more than ${total} bytes in all, ${overLimit("maxPackageBytes", limits)}`,
      );
    try {
      for (const [oid, bytes] of await client.readBlobs(oids.slice(i, i + BLOB_READ_BATCH))) {
        blobs.set(oid, bytes);
        total += bytes.length;
      }
    } catch (err) {
      const file = err instanceof ObjectTooLargeError && listing.find(f => f.oid === err.oid);
      if (file) throw fileTooLarge(file.path, (err as ObjectTooLargeError).size, limits);
      throw err;
    }
  }
  const read = listing.map(f => ({ path: f.path, bytes: blobs.get(f.oid) }));
  checkPackageFiles(
    read.map(f => ({ path: f.path, size: f.bytes?.length })),
    limits,
  );
  const files: Record<string, string> = {};
  for (const { path, bytes } of read) {
    if (bytes === undefined)
      throw new GitStoreError("Transport", `file ${printableName(path)} could not be read`);
    files[path] = decodeFile(path, bytes);
  }
  return files;
}
