// The git content store: the shared-cache operations for one repository
// (docs/package-revisions.md, “Content store”), backed by a bare cache clone and either git
// client. CRD is intent, git is content; this is the content side.
import { RepoContext, normalizeConfig } from "./context";
import { createDraftFromExisting, createNewDraft } from "./draft";
import { GitStoreError } from "./errors";
import { KPTFILE } from "../kpt/kptfile-name";
import { deletePackage, updateLifecycle } from "./lifecycle";
import { gitNetworkFromEnv } from "./network";
import { subtreeAt } from "./tree";
import type {
  ApprovalRecord,
  ContentStore,
  GitClientKind,
  Lifecycle,
  PackageContent,
  PackageDraft,
  PackageRevisionInfo,
  PackageRevisionKey,
  RepositoryConfig,
  StoreOptions,
} from "./types";

export class GitContentStore implements ContentStore {
  readonly config: Readonly<RepositoryConfig>;
  private readonly ctx: RepoContext;

  constructor(config: RepositoryConfig, options: StoreOptions) {
    if (!options.cacheRoot)
      throw new GitStoreError("InvalidArgument", "StoreOptions.cacheRoot is required");
    const network = options.network ?? gitNetworkFromEnv(process.env);
    const normalized = normalizeConfig(config, network);
    this.ctx = new RepoContext(normalized, options, network);
    // Exposed without credentials: callers log and print this.
    this.config = Object.freeze({
      url: normalized.url,
      branch: normalized.branch,
      directory: normalized.directory,
      createBranch: normalized.createBranch,
      author: normalized.author,
    });
  }

  get clientKind(): GitClientKind {
    return this.ctx.client.kind;
  }

  /** Folder of this repository's bare cache clone. */
  get cacheDir(): string {
    return this.ctx.cacheDir;
  }

  open(): Promise<string> {
    return this.ctx.read(async () => this.ctx.branchHead(), true);
  }

  listPackageRevisions(filter?: { packageName?: string }): Promise<PackageRevisionInfo[]> {
    return this.ctx.read(() => this.ctx.listPackage(filter?.packageName));
  }

  findRevision(key: PackageRevisionKey): Promise<PackageRevisionInfo | undefined> {
    return this.ctx.read(() => this.ctx.findRevision(key));
  }

  getPackageContent(key: PackageRevisionKey): Promise<PackageContent> {
    return this.ctx.read(async () => {
      const info = await this.ctx.find(key);
      const pkg = await this.ctx.discovery.packageAt(info.commit, info.path);
      if (pkg === null)
        throw new GitStoreError(
          "NotFound",
          `package ${info.packageName} has no ${KPTFILE} at ${info.ref}`,
        );
      const files = await this.ctx.packageFiles(pkg.tree);
      // The Kptfile as discovery read it (memoised by its blob id), not parsed again.
      const { kptfile } = pkg;
      return {
        info,
        files,
        ...(kptfile.ok && kptfile.upstreamLock ? { upstreamLock: kptfile.upstreamLock } : {}),
      };
    });
  }

  createNewDraft(
    key: PackageRevisionKey,
    lifecycle: "Draft" | "Proposed" = "Draft",
  ): Promise<PackageDraft> {
    return createNewDraft(this.ctx, key, lifecycle);
  }

  createDraftFromExisting(key: PackageRevisionKey): Promise<PackageDraft> {
    return createDraftFromExisting(this.ctx, key);
  }

  updateLifecycle(
    key: PackageRevisionKey,
    desired: Lifecycle,
    approval?: ApprovalRecord,
  ): Promise<PackageRevisionInfo> {
    return updateLifecycle(this.ctx, key, desired, approval);
  }

  deletePackage(key: PackageRevisionKey): Promise<void> {
    return deletePackage(this.ctx, key);
  }

  /**
   * The files under `directory` at `ref` (a tag, a branch or a commit), and the commit: what a
   * clone from a raw git URL (PackageRevision spec.source.cloneFrom.git) reads.
   */
  async readAtRef(
    ref: string,
    directory: string,
  ): Promise<{ files: Record<string, string>; commit: string }> {
    const refs = await this.ctx.fetchAll();
    const commit =
      (refs.get(`refs/tags/${ref}`) ?? refs.get(`refs/heads/${ref}`))?.commit ??
      (/^[0-9a-f]{40}$/.test(ref) ? ref : undefined);
    if (commit === undefined)
      throw new GitStoreError(
        "NotFound",
        `ref ${JSON.stringify(ref)} not found in repository ${this.config.url}`,
      );
    const tree = await subtreeAt(
      this.ctx.client,
      (await this.ctx.client.readCommit(commit)).tree,
      directory,
    );
    if (tree === undefined)
      throw new GitStoreError(
        "NotFound",
        `directory ${JSON.stringify(directory)} not found at ${ref} in repository ${this.config.url}`,
      );
    return { files: await this.ctx.packageFiles(tree), commit };
  }

  reconsiderPush(): void {
    this.ctx.reconsiderPush();
  }

  close(): void {
    this.ctx.client.close();
  }
}

export function openContentStore(config: RepositoryConfig, options: StoreOptions): ContentStore {
  return new GitContentStore(config, options);
}
