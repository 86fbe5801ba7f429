// The objects a push must carry, found without isomorphic-git's walks. Its push lists every
// object of the pushed commit's tree, then every object of the base branch's tree (to leave
// out what the remote has), and for a ref the remote has, the merge base's tree too: two or
// three walks of the whole repository per push. Here the push carries the commits this client
// wrote that the remote lacks and, of each one's tree, the entries that differ from its first
// parent's tree at the same path: the rest the parent brings, or the remote has. Only the
// changed paths are read.
import type { CommitInfo, TreeEntry } from "./client";

export interface ObjectSource {
  readCommit(oid: string): Promise<CommitInfo>;
  readTree(oid: string): Promise<TreeEntry[]>;
}

/**
 * Objects of `tip` the remote lacks, given the commits the remote has (`remoteHas`) and the ones
 * this client wrote (`written`); undefined when the history reaches a commit that is neither,
 * which only a full walk can settle.
 */
export async function objectsToPush(
  source: ObjectSource,
  tip: string,
  remoteHas: (commit: string) => boolean,
  written: (commit: string) => boolean,
): Promise<string[] | undefined> {
  const out = new Set<string>();
  const pending = [tip];
  for (let oid = pending.pop(); oid !== undefined; oid = pending.pop()) {
    if (out.has(oid) || remoteHas(oid)) continue;
    if (!written(oid)) return undefined;
    out.add(oid);
    const commit = await source.readCommit(oid);
    const parent = commit.parents[0];
    const base = parent === undefined ? undefined : (await source.readCommit(parent)).tree;
    await changedObjects(source, commit.tree, base, out);
    pending.push(...commit.parents);
  }
  return [...out];
}

/** Adds `tree` and what in it differs from `base` (same path, other oid) to `out`. */
async function changedObjects(
  source: ObjectSource,
  tree: string,
  base: string | undefined,
  out: Set<string>,
): Promise<void> {
  if (tree === base || out.has(tree)) return;
  out.add(tree);
  const before = new Map(
    base === undefined ? [] : (await source.readTree(base)).map(e => [e.path, e]),
  );
  for (const entry of await source.readTree(tree)) {
    const old = before.get(entry.path);
    if (old?.oid === entry.oid || entry.type === "commit") continue; // a submodule is no object here
    if (entry.type === "tree")
      await changedObjects(source, entry.oid, old?.type === "tree" ? old.oid : undefined, out);
    else out.add(entry.oid);
  }
}
