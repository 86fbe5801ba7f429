// How package revisions are laid out in git, as the reference implementation writes them:
//   Draft              refs/heads/drafts/<path>/<workspace>
//   Proposed           refs/heads/proposed/<path>/<workspace>
//   Published          refs/tags/<path>/v<N> (commit also on the repository branch)
//   DeletionProposed   refs/heads/deletionProposed/<path>/v<N>  (<path>/<workspace> for the placeholder)
// <path> is the package path inside the git repository (Repository directory + package name).
// Commit messages carry `kpt:{"package":..,"workspaceName":..,"revision":..}` annotation lines.
import { GitStoreError } from "./errors";

export const HEADS = "refs/heads/";
export const TAGS = "refs/tags/";
export const DRAFTS = "drafts/";
export const PROPOSED = "proposed/";
export const DELETION_PROPOSED = "deletionProposed/";

/** Signature of commits the store makes (committer always; author when none configured). */
export const PORCH_SIGNATURE = { name: "Package Orchestration Service", email: "porch@kpt.dev" };
export const INITIAL_COMMIT_MESSAGE = "Initial commit: Creating main branch";
export const INITIAL_README = { name: "README.md", content: "Created by porch" };

export function trimSlashes(p: string): string {
  return p.replace(/^\/+|\/+$/g, "");
}

/** Package path in the git tree for a package name relative to the repository directory. */
export function packagePath(directory: string, packageName: string): string {
  return [trimSlashes(directory), trimSlashes(packageName)].filter(s => s !== "").join("/");
}

/** Package name relative to `directory`, or undefined when `path` lies outside it. */
export function packageNameIn(directory: string, path: string): string | undefined {
  const dir = trimSlashes(directory);
  if (dir === "") return path === "" ? undefined : path;
  if (!path.startsWith(`${dir}/`)) return undefined;
  return path.slice(dir.length + 1);
}

export const draftBranch = (path: string, workspace: string) =>
  `${HEADS}${DRAFTS}${path}/${workspace}`;
export const proposedBranch = (path: string, workspace: string) =>
  `${HEADS}${PROPOSED}${path}/${workspace}`;
export const tagRef = (path: string, revision: number) => `${TAGS}${path}/v${revision}`;
/** Deletion proposals are keyed by `v<N>` for numbered revisions, else by the workspace name. */
export function deletionProposedBranch(path: string, revision: number, workspace: string): string {
  return `${HEADS}${DELETION_PROPOSED}${path}/${revision > 0 ? `v${revision}` : workspace}`;
}

export type ParsedRef =
  | { kind: "draft" | "proposed" | "deletionProposed"; path: string; leaf: string }
  | { kind: "tag"; path: string; leaf: string }
  | { kind: "branch"; name: string };

/** Classifies a remote ref name; tags without a `/` (release tags) and other refs give undefined. */
export function parseRef(ref: string): ParsedRef | undefined {
  if (ref.startsWith(TAGS)) {
    const split = splitLast(ref.slice(TAGS.length));
    return split && { kind: "tag", ...split };
  }
  if (!ref.startsWith(HEADS)) return undefined;
  const name = ref.slice(HEADS.length);
  for (const [prefix, kind] of [
    [DRAFTS, "draft"],
    [PROPOSED, "proposed"],
    [DELETION_PROPOSED, "deletionProposed"],
  ] as const) {
    if (name.startsWith(prefix)) {
      const split = splitLast(name.slice(prefix.length));
      return split && { kind, ...split };
    }
  }
  return { kind: "branch", name };
}

function splitLast(s: string): { path: string; leaf: string } | undefined {
  const i = s.lastIndexOf("/");
  if (i <= 0 || i === s.length - 1) return undefined;
  return { path: s.slice(0, i), leaf: s.slice(i + 1) };
}

/** Revision from a tag leaf as the reference reads it: `v3` or `3` → 3; anything else → -1. */
export function revisionFromTag(leaf: string): number {
  const digits = leaf.startsWith("v") ? leaf.slice(1) : leaf;
  return /^[+-]?\d+$/.test(digits) ? Number.parseInt(digits, 10) : -1;
}

export interface CommitAnnotation {
  package?: string;
  workspaceName?: string;
  revision?: string;
  task?: unknown;
}

/** Appends the annotation line the reference writes: `<message>\n\nkpt:{json}\n`. */
export function annotateMessage(message: string, annotation: CommitAnnotation): string {
  return `${message}\n\nkpt:${JSON.stringify(annotation)}\n`;
}

/** Reads every `kpt:` annotation of a commit message; malformed lines are skipped. */
export function parseAnnotations(message: string): CommitAnnotation[] {
  const out: CommitAnnotation[] = [];
  for (const raw of message.split("\n")) {
    const line = raw.trim();
    if (!line.startsWith("kpt:")) continue;
    try {
      const value: unknown = JSON.parse(line.slice(4));
      if (value !== null && typeof value === "object" && !Array.isArray(value))
        out.push(value as CommitAnnotation);
    } catch {
      // The reference also skips annotations it cannot decode.
    }
  }
  return out;
}

/** workspaceName of the annotation for `path`, if the message has one. */
export function annotatedWorkspace(message: string, path: string): string | undefined {
  const hit = parseAnnotations(message).find(
    a => a.package === path && typeof a.workspaceName === "string",
  );
  return hit?.workspaceName || undefined;
}

const WORKSPACE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const SEGMENT = /^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/;

export function validateWorkspaceName(workspace: string): void {
  if (!WORKSPACE.test(workspace)) {
    throw new GitStoreError(
      "InvalidArgument",
      `workspaceName "${workspace}" must be 1-63 lowercase alphanumeric characters or '-', starting and ending with an alphanumeric character`,
    );
  }
}

export function validatePackageName(packageName: string): void {
  const segments = packageName.split("/");
  if (packageName === "" || segments.some(s => !SEGMENT.test(s) || s.includes(".."))) {
    throw new GitStoreError(
      "InvalidArgument",
      `package name "${packageName}" must be a relative path of lowercase alphanumeric segments ('-', '_', '.' allowed inside)`,
    );
  }
}

/** `refs/tags/pkg/v1` → `pkg/v1`: kpt and Porch record refs without the refs/... prefix. */
export const shortRef = (ref: string): string => ref.replace(/^refs\/(tags|heads)\//, "");

/** Where a revision's content is, as a Kptfile upstreamLock / PackageRevision selfLock says it. */
export function lockOf(url: string, info: { path: string; ref: string; commit: string }) {
  return {
    type: "git",
    git: { repo: url, directory: info.path, ref: shortRef(info.ref), commit: info.commit },
  };
}
