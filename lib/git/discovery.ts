// Reads package revisions out of the remote's refs, as the reference implementation lays them out
// (layout.ts). Everything keyed by an object id is immutable, so it is memoised across listings.
import type { CommitInfo, GitClient, RefMap } from "./client";
import { isKptfilePath, KPTFILE } from "../kpt/kptfile-name";
import { readKptfile, type KptfileRead } from "../kpt/kptfile-read";
import { CommitMemo } from "./commit-memo";
import { decodeFile } from "./content-limits";
import { isGitStoreError } from "./errors";
import {
  HEADS,
  annotatedWorkspace,
  deletionProposedBranch,
  packageNameIn,
  parseAnnotations,
  parseRef,
  revisionFromTag,
} from "./layout";
import { LIFECYCLES, type Lifecycle, type PackageRevisionInfo } from "./types";

/** Commits scanned on the branch to find who published the placeholder's content. */
const HISTORY_LIMIT = 1000;
/** Memo entries kept per map before it is dropped (a cheap bound on memory). */
const MEMO_LIMIT = 20000;
/** Bytes of commits memoised (messages as held, UTF-16): about 800 for each of MEMO_LIMIT. */
export const COMMIT_MEMO_BYTES = 16 * 1024 * 1024;
/**
 * Branch listings kept. A listing is reused only while its commit is still the branch's head,
 * and each holds every package of the branch: kept for every head a branch ever had (one per
 * publish), they were the largest live state of a 1,000-variant fleet (about 19 MB).
 */
export const HEAD_LISTING_LIMIT = 8;

function remember<K, V>(memo: Map<K, V>, key: K, value: V, limit = MEMO_LIMIT): V {
  if (memo.size >= limit) memo.clear();
  memo.set(key, value);
  return value;
}

/**
 * Refs that may name a package revision of `directory` (tags, draft and proposed branches):
 * counted from the names alone, before any commit or tree is read.
 */
export function revisionRefCount(refs: Iterable<string>, directory: string): number {
  let count = 0;
  for (const ref of refs) {
    const parsed = parseRef(ref);
    if (parsed === undefined || parsed.kind === "branch" || parsed.kind === "deletionProposed")
      continue;
    if (packageNameIn(directory, parsed.path) !== undefined) count++;
  }
  return count;
}

interface PackageAt {
  tree: string;
  kptfile: KptfileRead;
}

export interface DiscoveryScope {
  branch: string;
  directory: string;
  /** Only this package (name relative to directory). */
  packageName?: string;
}

export class Discovery {
  private readonly commits = new CommitMemo(MEMO_LIMIT, COMMIT_MEMO_BYTES);
  private readonly packages = new Map<string, PackageAt | null>();
  private readonly kptfiles = new Map<string, KptfileRead>();
  private readonly trees = new Map<string, Map<string, PackageAt>>();
  private history: { head: string; byPath: Map<string, CommitInfo> } | undefined;

  constructor(private readonly client: GitClient) {}

  async list(refs: RefMap, scope: DiscoveryScope): Promise<PackageRevisionInfo[]> {
    const out: PackageRevisionInfo[] = [];
    for (const [ref, { commit }] of refs) {
      const parsed = parseRef(ref);
      if (parsed === undefined || parsed.kind === "deletionProposed") continue;
      if (parsed.kind === "branch") {
        if (parsed.name === scope.branch)
          out.push(...(await this.placeholders(refs, commit, scope)));
        continue;
      }
      const packageName = packageNameIn(scope.directory, parsed.path);
      if (
        packageName === undefined ||
        (scope.packageName !== undefined && packageName !== scope.packageName)
      )
        continue;
      const pkg = await this.packageAt(commit, parsed.path);
      if (pkg === null) continue; // no Kptfile there: not a package revision (the reference skips it too)
      const base = { packageName, path: parsed.path, commit, ref, ...kptfileError(pkg) };
      if (parsed.kind === "draft" || parsed.kind === "proposed") {
        const lifecycle: Lifecycle = parsed.kind === "draft" ? "Draft" : "Proposed";
        out.push({ ...base, workspaceName: parsed.leaf, lifecycle, revision: 0 });
        continue;
      }
      out.push(await this.tagged(refs, base, parsed.leaf));
    }
    return out.sort(compareRevisions);
  }

  private async tagged(
    refs: RefMap,
    base: Omit<PackageRevisionInfo, "workspaceName" | "lifecycle" | "revision">,
    leaf: string,
  ): Promise<PackageRevisionInfo> {
    const revision = revisionFromTag(leaf);
    const info = await this.commit(base.commit);
    const annotated = annotatedWorkspace(info.message, base.path);
    const workspaceName = revision !== -1 ? (annotated ?? `v${revision}`) : leaf;
    const proposal = deletionProposedBranch(base.path, revision, workspaceName);
    return {
      ...base,
      workspaceName,
      revision,
      lifecycle: refs.has(proposal) ? "DeletionProposed" : "Published",
      publishedAt: isoTime(info.author.timestamp),
      publishedBy: info.author.email,
    };
  }

  /** The branch's packages as revision -1 with the branch name as workspace ("main" placeholder). */
  private async placeholders(
    refs: RefMap,
    head: string,
    scope: DiscoveryScope,
  ): Promise<PackageRevisionInfo[]> {
    const found = await this.packagesOnCommit(head, scope.directory);
    const out: PackageRevisionInfo[] = [];
    for (const [path, pkg] of found) {
      const packageName = packageNameIn(scope.directory, path);
      if (
        packageName === undefined ||
        (scope.packageName !== undefined && packageName !== scope.packageName)
      )
        continue;
      const published = await this.lastPackageCommit(head, path);
      const proposal = deletionProposedBranch(path, -1, scope.branch);
      out.push({
        packageName,
        path,
        workspaceName: scope.branch,
        lifecycle: refs.has(proposal) ? "DeletionProposed" : "Published",
        revision: -1,
        commit: head,
        ref: `${HEADS}${scope.branch}`,
        ...(published
          ? {
              publishedAt: isoTime(published.author.timestamp),
              publishedBy: published.author.email,
            }
          : {}),
        ...kptfileError(pkg),
      });
    }
    return out;
  }

  /**
   * Packages under `directory` in a commit: directories holding a Kptfile (the reference does
   * not look below a package, so a Kptfile inside a package belongs to it). One recursive listing.
   */
  async packagesOnCommit(commit: string, directory: string): Promise<Map<string, PackageAt>> {
    const dirTree = await this.subtree(commit, directory);
    if (dirTree === undefined) return new Map();
    const memo = this.trees.get(`${dirTree}:${directory}`);
    if (memo !== undefined) return memo;
    const result = new Map<string, PackageAt>();
    const prefix = directory === "" ? "" : `${directory}/`;
    const listing = await this.client.listTree(dirTree);
    const trees = new Map(listing.filter(e => e.type === "tree").map(e => [e.path, e.oid]));
    trees.set("", dirTree);
    const kptfiles = listing
      .filter(e => e.type === "blob" && isKptfilePath(e.path))
      .map(e => ({ dir: e.path.slice(0, -KPTFILE.length).replace(/\/$/, ""), blob: e.oid }))
      .sort((a, b) => a.dir.length - b.dir.length);
    const taken: string[] = [];
    for (const { dir, blob } of kptfiles) {
      const path = `${prefix}${dir}`.replace(/\/$/, "");
      if (path === "" || taken.some(q => path.startsWith(`${q}/`))) continue;
      taken.push(path);
      const pkg = { tree: trees.get(dir)!, kptfile: await this.kptfile(blob) };
      result.set(path, pkg);
    }
    const sorted = new Map([...result].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return remember(this.trees, `${dirTree}:${directory}`, sorted, HEAD_LISTING_LIMIT);
  }

  /** The package at `path` in `commit` (tree + Kptfile reading), or null when there is none. */
  async packageAt(commit: string, path: string): Promise<PackageAt | null> {
    const key = `${commit}:${path}`;
    const memo = this.packages.get(key);
    if (memo !== undefined) return memo;
    let result: PackageAt | null = null;
    const tree = await this.subtree(commit, path);
    const entry =
      tree === undefined
        ? undefined
        : (await this.client.readTree(tree)).find(e => e.path === KPTFILE);
    if (tree !== undefined && entry?.type === "blob")
      result = { tree, kptfile: await this.kptfile(entry.oid) };
    return remember(this.packages, key, result);
  }

  async commit(oid: string): Promise<CommitInfo> {
    let info = this.commits.get(oid);
    if (info === undefined) {
      info = this.commits.remember(await this.client.readCommit(oid));
    }
    return info;
  }

  private async subtree(commit: string, path: string): Promise<string | undefined> {
    let oid = (await this.commit(commit)).tree;
    for (const name of path.split("/").filter(p => p !== "")) {
      const entry = (await this.client.readTree(oid)).find(e => e.path === name);
      if (entry?.type !== "tree") return undefined;
      oid = entry.oid;
    }
    return oid;
  }

  /** A Kptfile over the file limit or not UTF-8 is a Kptfile that does not read, not a failed sync. */
  private async readKptfileBlob(blob: string): Promise<KptfileRead> {
    try {
      const bytes = (await this.client.readBlobs([blob])).get(blob) ?? Buffer.alloc(0);
      return readKptfile(decodeFile(KPTFILE, bytes));
    } catch (err) {
      if (isGitStoreError(err, "ContentTooLarge") || isGitStoreError(err, "NotUTF8"))
        return { ok: false, error: err.message.replace(/^git object [0-9a-f]+/, KPTFILE) };
      throw err;
    }
  }

  private async kptfile(blob: string): Promise<KptfileRead> {
    let read = this.kptfiles.get(blob);
    if (read === undefined) {
      read = remember(this.kptfiles, blob, await this.readKptfileBlob(blob));
    }
    return read;
  }

  /** Newest first-parent commit on the branch annotated for `path` (the reference's publish record). */
  private async lastPackageCommit(head: string, path: string): Promise<CommitInfo | undefined> {
    if (this.history?.head !== head) {
      const byPath = new Map<string, CommitInfo>();
      for (const c of await this.client.log(head, HISTORY_LIMIT)) {
        for (const a of parseAnnotations(c.message)) {
          if (typeof a.package === "string" && !byPath.has(a.package)) byPath.set(a.package, c);
        }
        this.commits.remember(c);
      }
      this.history = { head, byPath };
    }
    return this.history.byPath.get(path);
  }
}

function kptfileError(pkg: PackageAt): { kptfileError?: string } {
  return pkg.kptfile.ok ? {} : { kptfileError: pkg.kptfile.error };
}

function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

function compareRevisions(a: PackageRevisionInfo, b: PackageRevisionInfo): number {
  if (a.packageName !== b.packageName) return a.packageName < b.packageName ? -1 : 1;
  if (a.revision !== b.revision) return a.revision - b.revision;
  if (a.lifecycle !== b.lifecycle)
    return LIFECYCLES.indexOf(a.lifecycle) - LIFECYCLES.indexOf(b.lifecycle);
  return a.workspaceName < b.workspaceName ? -1 : a.workspaceName > b.workspaceName ? 1 : 0;
}
