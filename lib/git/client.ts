// The small git interface the store is written against, with two implementations: the git CLI
// (cli-client.ts) and isomorphic-git (iso-client.ts). The store never sees which one runs.
import { execFileSync } from "node:child_process";
import type { GitNetwork } from "./network";
import type { GitClientKind, GitCredentials } from "./types";

/** A ref as the remote has it: `oid` is what the ref points at, `commit` the peeled commit. */
export interface RemoteRef {
  oid: string;
  commit: string;
}

/** Remote ref name (refs/heads/..., refs/tags/...) → ref. */
export type RefMap = Map<string, RemoteRef>;

/** The refs a server advertised to a push (name → oid), before the push changed any. */
export type AdvertisedRefs = Map<string, string>;

/**
 * One ref update of a push. `oid: null` deletes. `expect`: undefined = plain fast-forward rules,
 * null = the ref must not exist, an oid = the ref must currently point there (compare-and-swap;
 * the update may then be a non-fast-forward).
 */
export interface RefUpdate {
  ref: string;
  oid: string | null;
  expect?: string | null;
}

/** Why a push refused a ref; `moved`: the remote is not where the writer planned (replan). */
export interface RefRefusal {
  moved: boolean;
  says: string;
}

/** Per ref of a push: undefined when it landed, else why not. */
export type RefVerdicts = Map<string, RefRefusal | undefined>;

export interface TreeEntry {
  mode: string; // "100644" | "100755" | "120000" | "040000" | "160000"
  path: string; // entry name; a relative path in listTree results
  oid: string;
  type: "blob" | "tree" | "commit";
}

export interface Signature {
  name: string;
  email: string;
  /** Seconds since epoch. */
  timestamp: number;
  /** Minutes east of UTC. */
  timezoneOffset: number;
}

export interface CommitSpec {
  tree: string;
  parents: string[];
  message: string;
  author: Signature;
  committer: Signature;
}

export interface CommitInfo extends CommitSpec {
  oid: string;
}

export interface GitClient {
  readonly kind: GitClientKind;
  /** Creates the bare cache repository if missing. */
  init(): Promise<void>;
  /** Fetches all branches and tags (pruning deleted ones) and returns the remote's refs. */
  fetch(): Promise<RefMap>;
  /**
   * Applies ref updates (creating the repository branch). The CLI applies them atomically;
   * isomorphic-git in one request, not atomically (each still a compare-and-swap on the
   * server). Throws PushRejectedError when refused.
   */
  push(updates: RefUpdate[]): Promise<void>;
  /**
   * Applies ref updates in one push: each ref lands or is refused on its own, or with `atomic`
   * all land or every one is refused (a refusal is in the answer, not thrown). Throws when the
   * push as a whole failed. `heard` is told the refs the server advertised before the push,
   * when the client saw them whole (advertisement.ts).
   */
  pushRefs(
    updates: RefUpdate[],
    atomic?: boolean,
    heard?: (refs: AdvertisedRefs) => void,
  ): Promise<RefVerdicts>;
  /** Entries of a tree (one level). */
  readTree(treeOid: string): Promise<TreeEntry[]>;
  /**
   * Every entry below a tree, recursively (trees included), paths relative to it: walkTree
   * (tree.ts) over readTree in both clients, no process spawned.
   */
  listTree(treeOid: string): Promise<TreeEntry[]>;
  /**
   * The blobs' bytes. A blob over the per-file limit rejects with ObjectTooLargeError: the CLI
   * never reads its body, isomorphic-git (whose packs are in memory already, bounded by the
   * per-fetch limit) drops it.
   */
  readBlobs(oids: string[]): Promise<Map<string, Buffer>>;
  writeBlobs(contents: Buffer[]): Promise<string[]>;
  writeTree(entries: TreeEntry[]): Promise<string>;
  readCommit(oid: string): Promise<CommitInfo>;
  /** First-parent history from `oid`, newest first, at most `max` commits. */
  log(oid: string, max: number): Promise<CommitInfo[]>;
  writeCommit(spec: CommitSpec): Promise<string>;
  /** Releases background processes (the CLI's cat-file reader). */
  close(): void;
}

export interface ClientOptions {
  /** Bare cache repository folder. */
  gitdir: string;
  /** Remote URL without userinfo. */
  url: string;
  credentials?: GitCredentials;
  /** The repository branch: isomorphic-git uses it as the thin-pack base for new refs. */
  branch: string;
  /** URL policy and timeouts, applied right before every network call; default from the env. */
  network?: GitNetwork;
  /** The namespace the repository is read for: its share of the fetch memory (fetch-memory.ts). */
  namespace?: string;
}

export const ZERO_OID = "0000000000000000000000000000000000000000";

let gitBinary: boolean | undefined;

/** True when a `git` executable answers on PATH (checked once per process). */
export function hasGitBinary(): boolean {
  if (gitBinary === undefined) {
    try {
      execFileSync("git", ["--version"], { stdio: "ignore" });
      gitBinary = true;
    } catch {
      gitBinary = false;
    }
  }
  return gitBinary;
}

/**
 * Client choice: explicit option, else env PORCH_GIT_CLIENT ("cli" | "isomorphic"), else the CLI
 * when a git binary exists, else isomorphic-git. bench/git-clients.ts, 500 packages x 15 files:
 * clone 106 vs 1513 ms, draft 334 vs 823 ms, publish 210 vs 1651 ms (CLI vs isomorphic-git).
 */
export function defaultClientKind(env: NodeJS.ProcessEnv = process.env): GitClientKind {
  const wanted = env.PORCH_GIT_CLIENT;
  if (wanted === "cli" || wanted === "isomorphic") return wanted;
  return hasGitBinary() ? "cli" : "isomorphic";
}

/** HTTP Authorization header value for the credentials (sent up front, no 401 round trip). */
export function authorizationHeader(credentials: GitCredentials | undefined): string | undefined {
  if (credentials === undefined) return undefined;
  if (credentials.type === "bearer") return `Bearer ${credentials.token}`;
  const pair = `${credentials.username}:${credentials.password}`;
  return `Basic ${Buffer.from(pair, "utf8").toString("base64")}`;
}

/** Strings that must never appear in a message: the secrets and their encoded header. */
export function secretsOf(credentials: GitCredentials | undefined): string[] {
  if (credentials === undefined) return [];
  const header = authorizationHeader(credentials) ?? "";
  const encoded = header.replace(/^(Basic|Bearer) /, "");
  return credentials.type === "bearer"
    ? [credentials.token, encoded]
    : [credentials.password, encoded];
}
