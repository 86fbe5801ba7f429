// Draft handles: commits are made in the local cache by updateResources and pushed to the
// drafts/ (or proposed/) branch by closeDraft, in the repository's next batched push. When the branch moved meanwhile (another writer),
// the draft's edits are replayed on the new branch tip, so no commit is lost.
import type { RefUpdate } from "./client";
import type { RepoContext } from "./context";
import { GitStoreError } from "./errors";
import { KPTFILE } from "../kpt/kptfile-name";
import {
  annotateMessage,
  draftBranch,
  packagePath,
  proposedBranch,
  validatePackageName,
  validateWorkspaceName,
} from "./layout";
import { buildTree, replaceSubtree, subtreeAt } from "./tree";
import {
  isPublished,
  type PackageDraft,
  type PackageRevisionInfo,
  type PackageRevisionKey,
} from "./types";
import { withLock } from "./mutex";
import { evictions } from "./cache-disk";

interface Edit {
  files: Record<string, string>;
  message: string;
}

interface DraftStart {
  /** Commit the first edit builds on (branch head for new drafts, the draft's commit otherwise). */
  parent: string;
  /** Current remote value of the draft ref: null when the draft is new. */
  expect: string | null;
}

export async function createNewDraft(
  ctx: RepoContext,
  key: PackageRevisionKey,
  lifecycle: "Draft" | "Proposed",
): Promise<PackageDraft> {
  validatePackageName(key.packageName);
  validateWorkspaceName(key.workspaceName);
  if (key.workspaceName === ctx.config.branch) {
    throw new GitStoreError(
      "InvalidArgument",
      `workspaceName "${key.workspaceName}" is reserved for the ${ctx.config.branch} branch placeholder`,
    );
  }
  // A listing up to readFreshnessMs old will do: the push at close leases the ref as absent.
  return ctx.read(async () => {
    const taken = (await ctx.listPackage(key.packageName)).some(
      r => r.workspaceName === key.workspaceName,
    );
    if (taken)
      throw new GitStoreError(
        "AlreadyExists",
        `package revision ${key.packageName}/${key.workspaceName} already exists`,
      );
    return new GitPackageDraft(ctx, key, lifecycle, { parent: ctx.branchHead(), expect: null });
  });
}

export async function createDraftFromExisting(
  ctx: RepoContext,
  key: PackageRevisionKey,
): Promise<PackageDraft> {
  return ctx.read(async () => {
    const rev = await ctx.find(key);
    if (isPublished(rev.lifecycle)) {
      throw new GitStoreError(
        "InvalidTransition",
        `package revision ${key.packageName}/${key.workspaceName} is ${rev.lifecycle}; only Draft or Proposed package revisions can be modified`,
      );
    }
    // A stale base is replayed onto the branch's tip at close (the push leases the ref).
    return new GitPackageDraft(ctx, key, rev.lifecycle, { parent: rev.commit, expect: rev.commit });
  });
}

class GitPackageDraft implements PackageDraft {
  private head: string | undefined;
  private readonly edits: Edit[] = [];
  private closed = false;
  /** The cache's eviction count when the draft's commits were made in it (cache-disk.ts). */
  private madeIn: number;
  private readonly path: string;
  private readonly ref: string;

  constructor(
    private readonly ctx: RepoContext,
    readonly key: PackageRevisionKey,
    readonly lifecycle: "Draft" | "Proposed",
    private start: DraftStart,
  ) {
    this.madeIn = evictions(ctx.cacheDir);
    this.path = packagePath(ctx.config.directory, key.packageName);
    this.ref =
      lifecycle === "Draft"
        ? draftBranch(this.path, key.workspaceName)
        : proposedBranch(this.path, key.workspaceName);
  }

  async updateResources(files: Record<string, string>, commitMessage: string): Promise<boolean> {
    this.assertOpen();
    if (!(KPTFILE in files)) {
      throw new GitStoreError(
        "InvalidArgument",
        `package ${this.key.packageName} must contain a ${KPTFILE} at its root`,
      );
    }
    return withLock(this.ctx.cacheDir, async () => {
      // The cache may have been evicted since the draft began: fetched again, edits remade.
      await this.ctx.refetchIfEvicted();
      if (evictions(this.ctx.cacheDir) !== this.madeIn) await this.remake();
      const edit = { files: { ...files }, message: commitMessage };
      const next = await this.commitEdit(
        this.head ?? this.start.parent,
        edit,
        this.head !== undefined || this.start.expect !== null,
      );
      if (next === undefined) return false;
      this.head = next;
      this.edits.push(edit);
      return true;
    });
  }

  async closeDraft(): Promise<PackageRevisionInfo> {
    this.assertOpen();
    if (this.head === undefined && this.start.expect === null) {
      throw new GitStoreError(
        "InvalidArgument",
        `draft ${this.key.packageName}/${this.key.workspaceName} has no resources; call updateResources with a ${KPTFILE} first`,
      );
    }
    const info = await this.ctx.write(
      async () => (this.head === undefined ? [] : [await this.leasedUpdate()]),
      () => this.ctx.find(this.key),
    );
    this.closed = true;
    return info;
  }

  /** The draft ref's update, replayed first onto a tip that moved since the draft began. */
  private async leasedUpdate(): Promise<RefUpdate[]> {
    if (evictions(this.ctx.cacheDir) !== this.madeIn) await this.remake();
    const current = this.ctx.refOid(this.ref) ?? null;
    if (current !== this.start.expect) {
      if (this.start.expect === null) {
        throw new GitStoreError(
          "AlreadyExists",
          `package revision ${this.key.packageName}/${this.key.workspaceName} was created concurrently by another writer`,
        );
      }
      if (current === null) {
        throw new GitStoreError(
          "Conflict",
          `draft branch ${this.ref} was removed concurrently (published or deleted by another writer)`,
        );
      }
      await this.replayOn(current);
    }
    // A rejection makes ctx.write refetch and call us again (then we replay).
    return [{ ref: this.ref, oid: this.head!, expect: this.start.expect }];
  }

  /**
   * Commits every edit again from the draft's start: the cache they were committed in was
   * evicted (cache-disk.ts) and fetched again without them.
   */
  private async remake(): Promise<void> {
    this.madeIn = evictions(this.ctx.cacheDir);
    let head: string | undefined;
    for (const edit of this.edits)
      head =
        (await this.commitEdit(
          head ?? this.start.parent,
          edit,
          head !== undefined || this.start.expect !== null,
        )) ?? head;
    this.head = head;
  }

  /** Re-applies every edit on top of the branch's new tip. */
  private async replayOn(tip: string): Promise<void> {
    let head = tip;
    for (const edit of this.edits) head = (await this.commitEdit(head, edit, true)) ?? head;
    this.head = head;
    this.start = { parent: tip, expect: tip };
  }

  /** Commits `edit` on `parent`; undefined when the package tree would not change. */
  private async commitEdit(
    parent: string,
    edit: Edit,
    skipUnchanged: boolean,
  ): Promise<string | undefined> {
    const { client } = this.ctx;
    const parentTree = (await this.ctx.discovery.commit(parent)).tree;
    const pkgTree = await buildTree(client, edit.files);
    if (skipUnchanged && (await subtreeAt(client, parentTree, this.path)) === pkgTree)
      return undefined;
    const tree = await replaceSubtree(client, parentTree, this.path, pkgTree);
    const message = annotateMessage(edit.message, {
      package: this.path,
      workspaceName: this.key.workspaceName,
      revision: "0",
    });
    return client.writeCommit({
      tree,
      parents: [parent],
      message,
      author: this.ctx.author(),
      committer: this.ctx.committer(),
    });
  }

  private assertOpen(): void {
    if (this.closed)
      throw new GitStoreError(
        "InvalidArgument",
        `draft ${this.key.packageName}/${this.key.workspaceName} is already closed`,
      );
  }
}
