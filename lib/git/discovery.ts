// Reads package revisions out of the remote's refs, as the reference implementation lays them out
// (layout.ts). Everything keyed by an object id is immutable, so it is memoised across listings.
import type { CommitInfo, GitClient, RefMap } from "./client";
import { KPTFILE } from "../kpt/kptfile-name";
import { readKptfile, type KptfileRead } from "../kpt/kptfile-read";
import {
  commitBytes,
  kptfileReadBytes,
  processDiscoveryMemos,
  type DiscoveryMemos,
} from "./discovery-memos";
import {
  DEFAULT_CONTENT_LIMITS,
  LISTING_BYTES_PER_ENTRY,
  decodeFile,
  treeTooLarge,
  type GitContentLimits,
} from "./content-limits";
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
/** First-parent commits walked from a new branch head to the last one before reading the history anew. */
const HISTORY_STEPS = 64;
/** Memo entries kept per map before it is dropped (a cheap bound on memory). */
const MEMO_LIMIT = 20000;
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

/** Package path (relative to the listed directory) → package. */
type Listing = Map<string, PackageAt>;

/** What a subtree adds to a listing's count: its entries, and their bytes (paths relative to it). */
interface ListingSize {
  entries: number;
  bytes: number;
}

const PACKAGE_SIZE: ListingSize = { entries: 0, bytes: 0 };

/**
 * One listing of a directory's packages, top down. With `last` (the listing of an earlier tree
 * of the same directory), a subtree whose id is unchanged keeps its packages from it unread.
 * Counted as a tree listing is, the same whether read or kept (a subtree's count is memoised by
 * its id): every entry of the directories above the packages, 64 bytes and its path each, at
 * most maxTreeEntries entries and LISTING_BYTES_PER_ENTRY bytes each, else ContentTooLarge
 * naming the directory's tree.
 */
class DirectoryScan {
  private readonly found: Listing = new Map();
  /** Of `last`: each directory → the packages at or below it. */
  private readonly below = new Map<string, string[]>();
  /**
   * Package trees read by this scan, by id: a tree that many directories name (a few bytes each
   * in git) is read once, not once per directory.
   */
  private readonly packageTrees = new Map<string, PackageAt>();
  private entries = 0;
  private bytes = 0;

  constructor(
    private readonly client: GitClient,
    private readonly limits: GitContentLimits,
    private readonly root: string,
    /** A Repository's directory with a Kptfile is one package, as the reference reads it. */
    private readonly rootIsPackage: boolean,
    private readonly last: { tree: string; packages: Listing } | undefined,
    private readonly sizes: Map<string, ListingSize>,
    private readonly kptfile: (blob: string) => Promise<KptfileRead>,
  ) {
    for (const path of last?.packages.keys() ?? []) {
      const parts = path.split("/");
      for (let i = 0; i <= parts.length; i++) {
        const dir = parts.slice(0, i).join("/");
        const list = this.below.get(dir);
        if (list === undefined) this.below.set(dir, [path]);
        else list.push(path);
      }
    }
  }

  async run(): Promise<Listing> {
    await this.scan(this.root, "", this.last?.tree);
    return this.found;
  }

  private add(entries: number, bytes: number): void {
    this.entries += entries;
    this.bytes += bytes;
    if (
      this.entries > this.limits.maxTreeEntries ||
      this.bytes > this.limits.maxTreeEntries * LISTING_BYTES_PER_ENTRY
    )
      throw treeTooLarge(this.root, this.limits);
  }

  /** The packages at or below `path` (tree `tree`; `before`: its tree in the last listing). */
  private async scan(tree: string, path: string, before: string | undefined): Promise<ListingSize> {
    // The repository's root is never a package itself (its Kptfile is no package's): its count
    // is kept apart from the same tree's below it.
    const rootOnly = path === "" && !this.rootIsPackage;
    const key = rootOnly ? `root:${tree}` : tree;
    const shift = path === "" ? 0 : path.length + 1;
    const known = tree === before ? this.sizes.get(key) : undefined;
    if (known !== undefined) {
      this.add(known.entries, known.bytes + known.entries * shift);
      for (const kept of this.below.get(path) ?? [])
        this.found.set(kept, this.last!.packages.get(kept)!);
      return known;
    }
    const seen = rootOnly ? undefined : this.packageTrees.get(tree);
    if (seen !== undefined) {
      this.found.set(path, seen);
      return PACKAGE_SIZE;
    }
    const entries = await this.client.readTree(tree);
    const kptfile = entries.find(e => e.path === KPTFILE);
    if (!rootOnly && kptfile?.type === "blob") {
      const at = { tree, kptfile: await this.kptfile(kptfile.oid) };
      this.packageTrees.set(tree, at);
      this.found.set(path, at);
      return remember(this.sizes, key, PACKAGE_SIZE);
    }
    const earlier =
      before === undefined || before === tree ? undefined : await this.treesIn(before);
    const size = { entries: 0, bytes: 0 };
    for (const e of entries) {
      this.add(1, 64 + shift + e.path.length);
      size.entries += 1;
      size.bytes += 64 + e.path.length;
      if (e.type !== "tree") continue;
      const child = path === "" ? e.path : `${path}/${e.path}`;
      const sub = await this.scan(e.oid, child, earlier?.get(e.path));
      size.entries += sub.entries;
      size.bytes += sub.bytes + sub.entries * (e.path.length + 1);
    }
    return remember(this.sizes, key, size);
  }

  /** The subdirectories of a tree of the last listing, by name. */
  private async treesIn(tree: string): Promise<Map<string, string>> {
    const entries = await this.client.readTree(tree);
    return new Map(entries.filter(e => e.type === "tree").map(e => [e.path, e.oid]));
  }
}

export interface DiscoveryScope {
  branch: string;
  directory: string;
  /** Only this package (name relative to directory). */
  packageName?: string;
}

export class Discovery {
  private readonly packages = new Map<string, PackageAt | null>();
  private readonly trees = new Map<string, Map<string, PackageAt>>();
  /** What each tree read by a directory listing adds to its count (DirectoryScan). */
  private readonly sizes = new Map<string, ListingSize>();
  private history: History | undefined;
  /** The directory's last listing (paths relative to it): the base of the next one. */
  private lastListing: { directory: string; tree: string; packages: Listing } | undefined;

  constructor(
    private readonly client: GitClient,
    private readonly limits: GitContentLimits = DEFAULT_CONTENT_LIMITS,
    /** The Repository's cache folder: the memos' entries are its own. */
    private readonly scope = "",
    private readonly memos: DiscoveryMemos = processDiscoveryMemos(),
  ) {}

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
              publishedAt: isoTime(published.timestamp),
              publishedBy: published.email,
            }
          : {}),
        ...kptfileError(pkg),
      });
    }
    return out;
  }

  /**
   * Packages under `directory` in a commit: directories holding a Kptfile (the reference does
   * not look below a package, so a Kptfile inside a package belongs to it). Read top down, one
   * tree object per directory above the packages and one per package; against the directory's
   * last listing only the subtrees whose ids changed are read (a publish reads the trees on its
   * package's path), the others' packages are taken as they were.
   */
  async packagesOnCommit(commit: string, directory: string): Promise<Map<string, PackageAt>> {
    const dirTree = await this.subtree(commit, directory);
    if (dirTree === undefined) return new Map();
    const key = `${dirTree}:${directory}`;
    const memo = this.trees.get(key);
    if (memo !== undefined) return memo;
    const last = this.lastListing?.directory === directory ? this.lastListing : undefined;
    const scan = new DirectoryScan(
      this.client,
      this.limits,
      dirTree,
      directory !== "",
      last,
      this.sizes,
      blob => this.kptfile(blob),
    );
    const found = await scan.run();
    const prefix = directory === "" ? "" : `${directory}/`;
    const sorted = new Map(
      [...found]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([path, pkg]) => [path === "" ? directory : `${prefix}${path}`, pkg]),
    );
    this.lastListing = { directory, tree: dirTree, packages: found };
    return remember(this.trees, key, sorted, HEAD_LISTING_LIMIT);
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
    return (
      this.memos.commits.get(`${this.scope}\n${oid}`) ??
      this.rememberCommit(await this.client.readCommit(oid))
    );
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
    const key = `${this.scope}\n${blob}`;
    let read = this.memos.kptfiles.get(key);
    if (read === undefined) {
      read = await this.readKptfileBlob(blob);
      this.memos.kptfiles.set(key, read, kptfileReadBytes(read));
    }
    return read;
  }

  private rememberCommit(c: CommitInfo): CommitInfo {
    this.memos.commits.set(`${this.scope}\n${c.oid}`, c, commitBytes(c));
    return c;
  }

  /** Newest first-parent commit on the branch annotated for `path` (the reference's publish record). */
  private async lastPackageCommit(head: string, path: string): Promise<PublishRecord | undefined> {
    if (this.history?.head !== head)
      this.history = (await this.advanceHistory(head)) ?? (await this.fullHistory(head));
    const found = this.history.byPath.get(path);
    return found !== undefined && this.history.seq - found.seq < HISTORY_LIMIT ? found : undefined;
  }

  /** The annotations of the HISTORY_LIMIT commits below `head`, from one `log`. */
  private async fullHistory(head: string): Promise<History> {
    const history: History = { head, seq: 0, byPath: new Map() };
    const commits = await this.client.log(head, HISTORY_LIMIT);
    commits.forEach((c, i) => {
      this.rememberCommit(c);
      record(history, c, -i);
    });
    return history;
  }

  /**
   * The history of `head` from the last one's, when `head` is at most HISTORY_STEPS first-parent
   * commits ahead of it (the usual move: a publish or a few): only those commits are read, each
   * through the object reader (no `git log` per publish); the rest is as the full read finds it.
   */
  private async advanceHistory(head: string): Promise<History | undefined> {
    const last = this.history;
    if (last === undefined) return undefined;
    const newer: CommitInfo[] = [];
    for (let oid: string | undefined = head; oid !== last.head; ) {
      if (oid === undefined || newer.length >= HISTORY_STEPS) return undefined;
      const c = await this.commit(oid);
      newer.push(c);
      oid = c.parents[0];
    }
    const seq = last.seq + newer.length;
    const history: History = { head, seq, byPath: new Map() };
    // Older first, so a newer commit's annotation replaces an older one's.
    for (const [path, found] of last.byPath)
      if (seq - found.seq < HISTORY_LIMIT) history.byPath.set(path, found);
    for (let i = newer.length - 1; i >= 0; i--) record(history, newer[i], seq - i, true);
    return history;
  }
}

/**
 * The newest publish record of each package in the HISTORY_LIMIT first-parent commits below
 * `head`. Commits are numbered as they are read, `head` being `seq`: one numbered `n` is
 * `seq - n` commits below the head, and stops counting once that is HISTORY_LIMIT or more.
 */
interface History {
  head: string;
  seq: number;
  byPath: Map<string, PublishRecord>;
}

/**
 * Who published a package and when: all a listing shows of the commit. Kept per package of the
 * branch for as long as the Repository is, so not the commit (its message is up to
 * PORCH_PEPR_GIT_MAX_COMMIT_BYTES) and not a slice of it (a slice keeps the whole string alive).
 */
interface PublishRecord {
  timestamp: number;
  email: string;
  seq: number;
}

/** Longest author email a listing shows; git does not bound it, a commit's size does. */
const MAX_EMAIL_CHARS = 256;

/**
 * Packages a branch's publish history records at most: no Repository lists more revisions
 * (PORCH_PEPR_REPOSITORY_MAX_REVISIONS' default), and a history of 16 commits of 1 MiB, each
 * line a `kpt:` annotation naming another package, recorded 650,000 of them (about 240 MB).
 */
export const HISTORY_MAX_PACKAGES = 10_000;
/** Longest package path recorded; longer ones name no package a listing finds. */
const MAX_PACKAGE_PATH_CHARS = 1024;

/** Records the packages `c` (numbered `seq`) is annotated for; `replace`: over older records. */
function record(history: History, c: CommitInfo, seq: number, replace = false): void {
  const seen = new Set<string>();
  let email: string | undefined; // one copy for all the commit's records
  for (const a of parseAnnotations(c.message)) {
    const path = a.package;
    if (typeof path !== "string" || path.length > MAX_PACKAGE_PATH_CHARS || seen.has(path))
      continue;
    seen.add(path);
    const known = history.byPath.has(path);
    if (known ? !replace : history.byPath.size >= HISTORY_MAX_PACKAGES) continue;
    email ??= ownCopy(c);
    history.byPath.set(path, { timestamp: c.author.timestamp, email, seq });
  }
}

/** The author's email as a string of its own, cut to MAX_EMAIL_CHARS. */
function ownCopy(c: CommitInfo): string {
  return Buffer.from(c.author.email.slice(0, MAX_EMAIL_CHARS), "utf8").toString("utf8");
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
