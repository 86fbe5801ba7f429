// Public types of the git content store: Git is the source of truth for what a package contains
// (docs/package-revisions.md, “CRD as intent, git as content”); these types are what the Repository
// and PackageRevision capabilities see of it.

import type { GitNetwork } from "./network";
import type { UpstreamLock } from "../kpt/types";
import type { PackageMemo } from "./package-memo";

export type { UpstreamLock } from "../kpt/types";

/**
 * Who proposed and who approved a revision (lib/packages/approval-record.ts reads and writes its
 * annotations). Declared here, with the store that takes it, so git/ needs no import of packages/.
 */
export interface ApprovalRecord {
  proposedBy?: string;
  approvedBy?: string;
}

export type Lifecycle = "Draft" | "Proposed" | "Published" | "DeletionProposed";

export const LIFECYCLES: readonly Lifecycle[] = [
  "Draft",
  "Proposed",
  "Published",
  "DeletionProposed",
];

/**
 * Porch's LifecycleIsPublished: Published and DeletionProposed revisions carry a revision number
 * and a tag, and their content no longer changes. Takes any spelling of a lifecycle (git's,
 * a PackageRevision's spec) so that there is one definition.
 */
export function isPublished(
  lifecycle: string | undefined,
): lifecycle is "Published" | "DeletionProposed" {
  return lifecycle === "Published" || lifecycle === "DeletionProposed";
}

export type GitCredentials =
  | { type: "basic"; username: string; password: string }
  | { type: "bearer"; token: string };

export type GitClientKind = "cli" | "isomorphic";

/** One registered repository (Repository.spec.git plus resolved credentials). */
export interface RepositoryConfig {
  /** Clone URL (https; http and file as the URL policy allows). Userinfo is refused. */
  url: string;
  /** Repository branch holding published packages (default "main"). */
  branch?: string;
  /** Packages live under this directory; package names are relative to it (default: root). */
  directory?: string;
  /** Create `branch` (with a README commit) when the remote lacks it. */
  createBranch?: boolean;
  credentials?: GitCredentials;
  /** Commit author (committer is always the porch signature, as in the reference). */
  author?: { name?: string; email?: string };
}

export interface StoreOptions {
  /** Root folder of the per-repository bare caches. */
  cacheRoot: string;
  /** Git client; default from env PORCH_GIT_CLIENT, else "cli" when a git binary exists, else "isomorphic". */
  client?: GitClientKind;
  /**
   * Reads, and writes before their first attempt, refetch when the last fetch is older than this
   * (default 0: every operation fetches first). Writes stay safe either way: pushes are leased.
   */
  readFreshnessMs?: number;
  /** Attempts for a write whose push was rejected because the remote moved (default 8). */
  maxPushAttempts?: number;
  /** Refs and command bytes per push of a batch; default from the environment (push-batch.ts). */
  pushBatch?: { maxRefs: number; maxCommandBytes: number };
  /**
   * How long a batch may wait for more writers, and whether any are on their way (push-batch.ts,
   * Linger); absent: every batch goes at once.
   */
  pushLinger?: { maxMs: number; coming: () => boolean };
  log?: StoreLogger;
  /** URL policy and timeouts; default from the environment (gitNetworkFromEnv). */
  network?: GitNetwork;
  /** The namespace the repository is read for (the Repository's, a clone's): its fair shares. */
  namespace?: string;
  /** Package files already read, by tree id; default: the process's (package-memo.ts). */
  packageMemo?: PackageMemo;
}

export interface StoreLogger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

/** Addresses a package revision the way the reference content cache does: package + workspace. */
export interface PackageRevisionKey {
  /** Package path relative to the repository directory, e.g. "nested/app". */
  packageName: string;
  workspaceName: string;
}

export interface PackageRevisionInfo extends PackageRevisionKey {
  lifecycle: Lifecycle;
  /** 0 for Draft/Proposed, N for tag `<path>/vN`, -1 for the branch placeholder (workspace = branch). */
  revision: number;
  /** Commit the revision's content is read from. */
  commit: string;
  /** Full remote ref name: refs/heads/drafts/..., refs/heads/proposed/..., refs/tags/<path>/vN, refs/heads/<branch>. */
  ref: string;
  /** Package path inside the git repository (directory + packageName). */
  path: string;
  /** Author time (ISO 8601) / email of the commit that published the revision, where recorded. */
  publishedAt?: string;
  publishedBy?: string;
  /** Set when the package's Kptfile does not parse; the revision is still listed. */
  kptfileError?: string;
}

export interface PackageContent {
  info: PackageRevisionInfo;
  /** All files of the package directory (nested packages included), path relative to the package. */
  files: Record<string, string>;
  /** Kptfile `upstreamLock`, when the Kptfile has one. */
  upstreamLock?: UpstreamLock;
}

export interface PackageDraft {
  readonly key: PackageRevisionKey;
  /** Draft or Proposed: the branch family closeDraft pushes to. */
  readonly lifecycle: "Draft" | "Proposed";
  /**
   * Commits the full desired file set of the package (files absent from the map are deleted).
   * Returns false when the content is unchanged (no commit made).
   */
  updateResources(files: Record<string, string>, commitMessage: string): Promise<boolean>;
  /** Pushes the draft's commits to its branch; the handle cannot be used afterwards. */
  closeDraft(): Promise<PackageRevisionInfo>;
}

/**
 * The six operations of Porch's shared cache, plus listing, for one repository
 * (docs/package-revisions.md, “Content store”).
 */
export interface ContentStore {
  readonly config: Readonly<RepositoryConfig>;
  readonly clientKind: GitClientKind;
  /** Folder of the repository's cache (removeCache deletes it when the Repository goes). */
  readonly cacheDir: string;
  /** Fetches and checks the branch (creating it when createBranch); returns the branch head commit. */
  open(): Promise<string>;
  listPackageRevisions(filter?: { packageName?: string }): Promise<PackageRevisionInfo[]>;
  /**
   * The revision a package + workspace names, or undefined: a draft or proposal over a tag, a
   * tag over the branch placeholder, the highest tag among tags (the one ranking every caller uses).
   */
  findRevision(key: PackageRevisionKey): Promise<PackageRevisionInfo | undefined>;
  getPackageContent(key: PackageRevisionKey): Promise<PackageContent>;
  createNewDraft(key: PackageRevisionKey, lifecycle?: "Draft" | "Proposed"): Promise<PackageDraft>;
  createDraftFromExisting(key: PackageRevisionKey): Promise<PackageDraft>;
  /**
   * Moves a revision; publishing records `approval` (who proposed, who approved, as admission
   * wrote it) as the publishing commit's author and trailers.
   */
  updateLifecycle(
    key: PackageRevisionKey,
    desired: Lifecycle,
    approval?: ApprovalRecord,
  ): Promise<PackageRevisionInfo>;
  deletePackage(key: PackageRevisionKey): Promise<void>;
  /** Files under a directory at any ref (tag, branch or commit), for raw git clone sources. */
  readAtRef(
    ref: string,
    directory: string,
  ): Promise<{ files: Record<string, string>; commit: string }>;
  /** A batch waiting for more writers asks again whether any are on their way. */
  reconsiderPush(): void;
  /** Stops background helpers (the CLI client's object reader); the store can be reopened by use. */
  close(): void;
}
