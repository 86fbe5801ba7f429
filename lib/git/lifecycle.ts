// Lifecycle transitions and deletion, expressed as ref updates. Each runs inside ctx.write: on a
// rejected push the remote is refetched and the whole step recomputed (revision number included).
// Pushes are batched and not atomic, so a step's updates come in stages (push-batch.ts): a later
// stage goes only once the earlier landed whole (a publish's first stage in an atomic push of
// its own), and an interrupted step leaves a state the next attempt completes. Publishes queued
// together chain: each plans on the queued branch commit and tags of the ones before it.
import { transitionProblem } from "../package-revision/lifecycle";
import { approvalTrailers } from "../packages/approval-record";
import { signatureNow } from "./commit-format";
import type { RefUpdate } from "./client";
import type { RepoContext } from "./context";
import { together, type Stage } from "./push-batch";
import { GitStoreError } from "./errors";
import { KPTFILE } from "../kpt/kptfile-name";
import {
  TAGS,
  annotateMessage,
  deletionProposedBranch,
  draftBranch,
  proposedBranch,
  tagRef,
} from "./layout";
import { replaceSubtree } from "./tree";
import {
  LIFECYCLES,
  isPublished,
  type ApprovalRecord,
  type Lifecycle,
  type PackageRevisionInfo,
  type PackageRevisionKey,
} from "./types";

export async function updateLifecycle(
  ctx: RepoContext,
  key: PackageRevisionKey,
  desired: Lifecycle,
  approval: ApprovalRecord = {},
): Promise<PackageRevisionInfo> {
  if (!LIFECYCLES.includes(desired)) {
    throw new GitStoreError(
      "InvalidArgument",
      `invalid desired lifecycle value: ${JSON.stringify(desired)}`,
    );
  }
  return ctx.write(
    async () => {
      const rev = await ctx.find(key);
      return rev.lifecycle === desired ? [] : transition(ctx, rev, desired, approval);
    },
    () => ctx.find(key),
  );
}

/**
 * The ref updates of a move, stage by stage; which moves are allowed is the shared table's
 * (transitionProblem).
 */
async function transition(
  ctx: RepoContext,
  rev: PackageRevisionInfo,
  desired: Lifecycle,
  approval: ApprovalRecord,
): Promise<Stage[]> {
  const problem = transitionProblem(rev.lifecycle, desired);
  if (problem !== undefined)
    throw new GitStoreError(
      "InvalidTransition",
      `cannot change lifecycle of ${rev.packageName}/${rev.workspaceName} from ${rev.lifecycle} to ${desired}: ${problem}`,
    );
  const proposal = deletionProposedBranch(rev.path, rev.revision, rev.workspaceName);
  switch (desired) {
    case "Draft":
      return move(rev, draftBranch(rev.path, rev.workspaceName));
    case "Proposed":
      return move(rev, proposedBranch(rev.path, rev.workspaceName));
    case "DeletionProposed":
      return [[{ ref: proposal, oid: rev.commit, expect: null }]];
    case "Published":
      // From Proposed a new tag; from DeletionProposed the deletion proposal is withdrawn.
      return rev.lifecycle === "Proposed"
        ? publish(ctx, rev, approval)
        : [[{ ref: proposal, oid: null, expect: ctx.refOid(proposal) }]];
  }
}

/** Draft ⇄ Proposed: create the new branch on the same commit, then drop the old one. */
function move(rev: PackageRevisionInfo, to: string): RefUpdate[][] {
  return [
    [{ ref: to, oid: rev.commit, expect: null }],
    [{ ref: rev.ref, oid: null, expect: rev.commit }],
  ];
}

/**
 * Proposed → Published: revision = latest published + 1; a commit on the repository branch that
 * replaces only this package's directory (parents: branch head, proposed commit), message
 * "Approving package revision <path>/<N>" with the kpt annotation; tag <path>/v<N> on it; the
 * proposed branch removed.
 */
async function publish(
  ctx: RepoContext,
  rev: PackageRevisionInfo,
  approval: ApprovalRecord,
): Promise<Stage[]> {
  const all = await ctx.listPackage(rev.packageName);
  const head = ctx.branchHead();
  const reserved = await ownTag(ctx, all, rev);
  if (reserved !== undefined && (await onBranch(ctx, head, reserved.commit))) {
    return [[{ ref: rev.ref, oid: null, expect: rev.commit }]]; // an earlier attempt got this far
  }
  const revision =
    reserved?.revision ??
    1 +
      Math.max(
        0,
        ...all.filter(r => isPublished(r.lifecycle) && r.revision > 0).map(r => r.revision),
      );
  const pkg = await ctx.discovery.packageAt(rev.commit, rev.path);
  if (pkg === null)
    throw new GitStoreError(
      "NotFound",
      `package ${rev.packageName} has no ${KPTFILE} in ${rev.ref}`,
    );
  const tree = await replaceSubtree(
    ctx.client,
    (await ctx.discovery.commit(head)).tree,
    rev.path,
    pkg.tree,
  );
  const message = annotateMessage(`Approving package revision ${rev.path}/${revision}`, {
    package: rev.path,
    workspaceName: rev.workspaceName,
    revision: String(revision),
  });
  // The approver is the publishing commit's author (status.publishedBy reads it back), as
  // Porch authors commits as the requesting user; without one, the Repository's author.
  const trailers = approvalTrailers(approval);
  const commit = await ctx.client.writeCommit({
    tree,
    parents: [head, rev.commit],
    message: trailers.length === 0 ? message : `${message}${trailers.join("\n")}\n`,
    author: approval.approvedBy
      ? signatureNow({ name: approval.approvedBy, email: approval.approvedBy })
      : ctx.author(),
    committer: ctx.committer(),
  });
  const tag = tagRef(rev.path, revision);
  // Stages: the tag and the branch commit together (an atomic push: of two writers that
  // numbered alike, one's branch commit never lands beside the other's tag), shared with the
  // other publishes queued meanwhile, whose commits chain on this one (push-batch.ts); then,
  // once both landed, the proposal goes, in the next batch.
  return [
    together([
      { ref: tag, oid: commit, expect: reserved === undefined ? null : ctx.refOid(tag) },
      { ref: ctx.branchRef, oid: commit, expect: head },
    ]),
    [{ ref: rev.ref, oid: null, expect: rev.commit }],
  ];
}

/** A tag an interrupted earlier publish of this very proposal left behind (same workspace, merges its commit). */
async function ownTag(
  ctx: RepoContext,
  all: PackageRevisionInfo[],
  rev: PackageRevisionInfo,
): Promise<PackageRevisionInfo | undefined> {
  for (const r of all) {
    if (!r.ref.startsWith(TAGS) || r.revision <= 0 || r.workspaceName !== rev.workspaceName)
      continue;
    if ((await ctx.discovery.commit(r.commit)).parents.includes(rev.commit)) return r;
  }
  return undefined;
}

async function onBranch(ctx: RepoContext, head: string, commit: string): Promise<boolean> {
  return (await ctx.client.log(head, 50)).some(c => c.oid === commit);
}

/**
 * Removes the git refs of a revision: the draft/proposed branch; or the tag and its deletion
 * proposal (and the package directory on the branch when no other published revision remains);
 * or, for the branch placeholder, the package directory on the branch and its deletion proposal.
 */
export async function deletePackage(ctx: RepoContext, key: PackageRevisionKey): Promise<void> {
  await ctx.write(
    async () => deletion(ctx, await ctx.find(key)),
    async () => undefined,
  );
}

/** Stages: the package off the branch first, then its deletion proposal and tag. */
async function deletion(ctx: RepoContext, rev: PackageRevisionInfo): Promise<RefUpdate[][]> {
  if (!isPublished(rev.lifecycle)) return [[{ ref: rev.ref, oid: null, expect: rev.commit }]];
  const first: RefUpdate[] = [];
  const updates: RefUpdate[] = [];
  const isTag = rev.ref.startsWith(TAGS);
  const others = (await ctx.listPackage(rev.packageName)).filter(
    r => r.ref.startsWith(TAGS) && r.ref !== rev.ref,
  );
  if (!isTag || others.length === 0) {
    const removal = await removeFromBranch(ctx, rev);
    if (removal !== undefined) first.push(removal);
  }
  const proposal = deletionProposedBranch(rev.path, rev.revision, rev.workspaceName);
  const proposalOid = ctx.refOid(proposal);
  if (proposalOid !== undefined) updates.push({ ref: proposal, oid: null, expect: proposalOid });
  if (isTag) updates.push({ ref: rev.ref, oid: null, expect: ctx.refOid(rev.ref) });
  return [first, updates];
}

/** A commit on the branch without the package directory ("Delete <path>"), if it is there. */
async function removeFromBranch(
  ctx: RepoContext,
  rev: PackageRevisionInfo,
): Promise<RefUpdate | undefined> {
  const head = ctx.branchHead();
  if ((await ctx.discovery.packageAt(head, rev.path)) === null) return undefined;
  const tree = await replaceSubtree(
    ctx.client,
    (await ctx.discovery.commit(head)).tree,
    rev.path,
    null,
  );
  const commit = await ctx.client.writeCommit({
    tree,
    parents: [head],
    message: `Delete ${rev.path}`,
    author: ctx.author(),
    committer: ctx.committer(),
  });
  return { ref: ctx.branchRef, oid: commit, expect: head };
}
