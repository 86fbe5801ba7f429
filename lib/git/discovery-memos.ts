// What a listing reads from git and keeps for the next one, keyed by object id (immutable) and
// by the Repository's cache folder (one tenant's entry never answers another's). One bound for
// the process, not one per Repository: a tenant registers as many Repositories as they like, and
// memos of 16 MiB each grew with every one; Kptfiles were kept with no byte bound at all (a
// megabyte-long upstreamLock.git.repo per Kptfile kept a megabyte each).
import type { KptfileRead } from "../kpt/kptfile-read";
import { ByteLru } from "../byte-lru";
import type { CommitInfo } from "./client";

/** Commits of every Repository's listings: their messages read the publish records. */
export const COMMIT_MEMO_BYTES = 32 * 1024 * 1024;
/** Kptfile reads (the upstream lock or the reason the Kptfile does not read). */
export const KPTFILE_MEMO_BYTES = 8 * 1024 * 1024;

/** What a kept value costs beyond its text: the key, the object, the map slot. */
const ENTRY_OVERHEAD = 512;

export interface DiscoveryMemos {
  commits: ByteLru<CommitInfo>;
  kptfiles: ByteLru<KptfileRead>;
}

/** Bytes held by `texts` (UTF-16 in the heap) and an entry's overhead. */
export function heldBytes(...texts: string[]): number {
  return texts.reduce((sum, text) => sum + 2 * text.length, ENTRY_OVERHEAD);
}

export function commitBytes(c: CommitInfo): number {
  const { author, committer } = c;
  return heldBytes(c.message, author.name, author.email, committer.name, committer.email);
}

export function kptfileReadBytes(read: KptfileRead): number {
  if (!read.ok) return heldBytes(read.error);
  const git = read.upstreamLock?.git;
  return heldBytes(
    read.upstreamLock?.type ?? "",
    ...(git ? [git.repo, git.directory, git.ref, git.commit] : []),
  );
}

export function newDiscoveryMemos(
  commitBytes = COMMIT_MEMO_BYTES,
  kptfileBytes = KPTFILE_MEMO_BYTES,
): DiscoveryMemos {
  return { commits: new ByteLru(commitBytes), kptfiles: new ByteLru(kptfileBytes) };
}

let processMemos: DiscoveryMemos | undefined;

/** The process's memos, made when first used. */
export function processDiscoveryMemos(): DiscoveryMemos {
  processMemos ??= newDiscoveryMemos();
  return processMemos;
}
