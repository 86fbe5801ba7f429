// The isomorphic-git cache's local refs: remote branches live under refs/remotes/origin/, tags
// under refs/tags/, keyed here by their remote names (refs/heads/..., refs/tags/...).
import fs from "node:fs";
import git from "isomorphic-git";

const ORIGIN = "refs/remotes/origin";
const HINT = `${ORIGIN}/HEAD`;

/** Remote ref name → oid, as the last fetch stored them. */
export async function localRefs(gitdir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [dir, remotePrefix] of [
    [ORIGIN, "refs/heads/"],
    ["refs/tags", "refs/tags/"],
  ]) {
    for (const name of await git.listRefs({ fs, gitdir, filepath: dir })) {
      if (name === "HEAD") continue;
      out.set(
        `${remotePrefix}${name}`,
        await git.resolveRef({ fs, gitdir, ref: `${dir}/${name}`, depth: 1 }),
      );
    }
  }
  return out;
}

/** Deletes the local copy of one remote ref (by its remote name). */
export async function deleteLocalRef(gitdir: string, ref: string): Promise<void> {
  const local = ref.startsWith("refs/heads/")
    ? `${ORIGIN}/${ref.slice("refs/heads/".length)}`
    : ref;
  await git.deleteRef({ fs, gitdir, ref: local });
}

/**
 * After a push of `ref` (by its remote name) to `oid` (null: deleted), makes the local copy say
 * what the remote now has, so the next fetch finds nothing changed. isomorphic-git's own push
 * records a pushed tag (pushed by oid, as this client does) as refs/remotes/origin/refs/tags/...:
 * a ref the remote does not have, which made every later fetch see a change and fetch in full.
 */
export async function recordPushedRef(
  gitdir: string,
  ref: string,
  oid: string | null,
): Promise<void> {
  const local = ref.startsWith("refs/heads/")
    ? `${ORIGIN}/${ref.slice("refs/heads/".length)}`
    : ref;
  if (ref.startsWith("refs/tags/") && fs.existsSync(`${gitdir}/${ORIGIN}/${ref}`))
    await git.deleteRef({ fs, gitdir, ref: `${ORIGIN}/${ref}` });
  if (oid === null) await git.deleteRef({ fs, gitdir, ref: local });
  else await git.writeRef({ fs, gitdir, ref: local, value: oid, force: true });
}

/**
 * Points refs/remotes/origin/HEAD at `branch` (isomorphic-git then leaves the branch's objects out
 * of a push) or removes it (undefined): the hint costs a walk of the branch's whole tree, worth it
 * only when the push carries new objects.
 */
export async function setThinPackHint(gitdir: string, branch: string | undefined): Promise<void> {
  if (branch !== undefined) {
    await git.writeRef({
      fs,
      gitdir,
      ref: HINT,
      value: `${ORIGIN}/${branch}`,
      symbolic: true,
      force: true,
    });
  } else if (fs.existsSync(`${gitdir}/${HINT}`)) {
    await git.deleteRef({ fs, gitdir, ref: HINT });
  }
}
