import { initSubpackageProblem } from "../../lib/validation";
import { isDeepStrictEqual } from "node:util";
import { PackageRevision, Repository } from "../../crd-types";
import type { ContentStore, PackageRevisionInfo } from "../../lib/git";
import {
  copySourceProblem,
  type Lifecycle,
  type RevisionOutcome,
} from "../../lib/package-revision";
import {
  failureReason,
  isGitStoreError,
  isTransientGitError,
  lockOf,
  readKptfile,
} from "../../lib/git";
import {
  clonePackage,
  initPackage,
  upgradePackage,
  UpgradeError,
  isUpdateStrategy,
} from "../../lib/kpt";
import type { MergeConflict } from "../../lib/kpt";
import { KptfileError } from "../../lib/kpt/kptfile";
import { isPermanentError } from "../../lib/controller/permanent-error";
import { assertSafeFileNames } from "../../lib/packages/content-readiness";
import { workspaceTakenBy } from "../shared/workspace-owners";
import { errorMessage } from "../../lib/errors";
import type { OperatorContext } from "../context";
import { updateLatestLabels } from "../shared/latest-revision-labels";
import { writeResources } from "../shared/package-resources";
import { gitKey } from "../shared/git-key";
import { MANAGER } from "./status";
import { renderFiles, syncKptfile, writeRenderStatus, type RenderedPackage } from "./render";
import { isConflict } from "../../lib/cluster/errors";
import { contentOf, SourceError } from "../shared/revision-content";
import {
  noteSourceMutations,
  withVariantMutations,
  type SourceMutations,
} from "./variant-mutations";
import { heldBytes } from "./pending-writes";
import { heapBytes } from "../../lib/package-revision/render-statuses";
import { keyOf } from "../../lib/controller/manager";
import { mayHandIn, pendingDraftsOf, repositoryOf } from "./writers";
import type { CreationSource, RenderedSource } from "./rendered-source";

interface SourceResult {
  creationSource: CreationSource;
  files: Record<string, string>;
  conflicts?: MergeConflict[];
  /** Whose mutations the files carry (a variant's draft). */
  mutations?: SourceMutations;
}

const packagePathOf = (pr: PackageRevision) => pr.spec?.packageName ?? "";

/** Clone source given as a git URL, ref and directory instead of a registered revision. */
async function fromGitUrl(
  ctx: OperatorContext,
  namespace: string,
  git: { repo: string; ref: string; directory: string; secretRef?: { name: string } },
) {
  const raw = await ctx.stores.raw(namespace, git);
  try {
    const { files, commit } = await raw.readAtRef(git.ref, git.directory);
    return {
      content: { files },
      lock: { repo: git.repo, directory: git.directory, ref: git.ref, commit },
    };
  } finally {
    raw.close();
  }
}

/** What a source produces: the package's files (docs/package-revisions.md, “Source”). */
async function executeSource(
  ctx: OperatorContext,
  pr: PackageRevision,
  repo: Repository,
): Promise<SourceResult> {
  const source = pr.spec?.source ?? {};
  const namespace = pr.metadata?.namespace ?? "";
  const forDeployment = repo.spec?.deployment === true;
  const packageName = packagePathOf(pr);
  const options = { forDeployment, packagePath: packageName };
  if (source.init) {
    // Admission refuses it; an object written while the webhook was down fails here.
    const subpackage = initSubpackageProblem(source);
    if (subpackage) throw new SourceError(subpackage);
    return {
      creationSource: "init",
      files: initPackage(packageName, { ...source.init, ...options }),
    };
  }
  if (source.cloneFrom) {
    const { upstreamRef, git } = source.cloneFrom;
    if (!upstreamRef && !git) throw new SourceError("cloneFrom needs upstreamRef or git");
    const upstream = upstreamRef
      ? await contentOf(ctx, namespace, upstreamRef.name, "upstream")
      : await fromGitUrl(ctx, namespace, git!);
    return {
      creationSource: "clone",
      files: clonePackage(upstream.content.files, upstream.lock, packageName, options),
    };
  }
  if (source.copyFrom) {
    const from = await contentOf(ctx, namespace, source.copyFrom.name, "source");
    if (
      from.pr.spec?.packageName !== packageName ||
      from.pr.spec?.repository !== pr.spec?.repository
    ) {
      throw new SourceError(`copyFrom "${source.copyFrom.name}" is a revision of another package`);
    }
    const unpublished = copySourceProblem(from.pr);
    if (unpublished) throw new SourceError(unpublished);
    return { creationSource: "copy", files: from.content.files };
  }
  if (source.upgrade) {
    const u = source.upgrade;
    const [original, updated, local] = await Promise.all([
      contentOf(ctx, namespace, u.oldUpstream.name, "old upstream"),
      contentOf(ctx, namespace, u.newUpstream.name, "new upstream"),
      contentOf(ctx, namespace, u.currentPackage.name, "current package"),
    ]);
    const strategy = u.strategy && isUpdateStrategy(u.strategy) ? u.strategy : "resource-merge";
    const result = upgradePackage(
      {
        original: original.content.files,
        updated: updated.content.files,
        local: local.content.files,
      },
      strategy,
      updated.lock,
    );
    return { creationSource: "upgrade", files: result.files, conflicts: result.conflicts };
  }
  throw new SourceError("spec.source sets none of init, cloneFrom, copyFrom, upgrade");
}

/** Git already has this package and workspace, and not as this object's source made it. */
class WorkspaceTakenError extends Error {}

async function workspaceTakenMessage(ctx: OperatorContext, pr: PackageRevision): Promise<string> {
  const spec = pr.spec ?? {};
  return (
    (await workspaceTakenBy(ctx, pr)) ??
    `spec.workspaceName: package "${spec.packageName}" of repository "${spec.repository}" already has workspace "${spec.workspaceName}" in git, not made by this PackageRevision (an earlier object's or from outside); choose another workspaceName`
  );
}

/**
 * Commits the source's files to a new draft branch: the commit is written here (in the
 * reconcile's worker, so a tenant's burst writes no faster than its worker share allows), and
 * `push` lands the branch. A draft already there is reused only when it holds exactly these
 * files (this object's attempt, interrupted before it wrote the status); anything else belongs
 * to someone else and is not taken over.
 */
async function writeDraft(
  ctx: OperatorContext,
  pr: PackageRevision,
  store: ContentStore,
  result: SourceResult,
): Promise<{ push: () => Promise<PackageRevisionInfo> }> {
  const existing = (error: unknown) => existingDraft(ctx, pr, store, result, error);
  try {
    const draft = await store.createNewDraft(gitKey(pr));
    await draft.updateResources(result.files, `${result.creationSource} ${pr.metadata?.name}`);
    return { push: () => draft.closeDraft().catch(existing) };
  } catch (error) {
    const info = await existing(error);
    return { push: async () => info };
  }
}

/** A draft branch already there: this object's own earlier attempt, or someone else's. */
async function existingDraft(
  ctx: OperatorContext,
  pr: PackageRevision,
  store: ContentStore,
  result: SourceResult,
  error: unknown,
): Promise<PackageRevisionInfo> {
  if (!isGitStoreError(error, "AlreadyExists")) throw error;
  const existing = await store.getPackageContent(gitKey(pr));
  const ours =
    (existing.info.lifecycle === "Draft" || existing.info.lifecycle === "Proposed") &&
    isDeepStrictEqual(existing.files, result.files);
  if (ours) return existing.info;
  throw new WorkspaceTakenError(await workspaceTakenMessage(ctx, pr));
}

/**
 * The source's files as rendered, or as the source made them when the render failed (git needs
 * a draft either way; the Rendered condition says why it is not rendered).
 */
async function renderSource(
  ctx: OperatorContext,
  pr: PackageRevision,
  files: Record<string, string>,
): Promise<{ files: Record<string, string> } & Omit<RenderedPackage, "kept">> {
  try {
    const { kept, ...rest } = await renderFiles(ctx, pr, files);
    return { files: kept ?? files, ...rest };
  } catch (error) {
    if (!isPermanentError(error)) throw error;
    const { reason, message } = error;
    return { files, renderStatus: { error: message }, verdict: { ok: false, reason, message } };
  }
}

/** What the source step did; the orchestrator states it and goes on accordingly. */
export type SourceOutcome =
  /** No source, or it ran in an earlier reconcile. */
  | { kind: "none" }
  /** The new draft is in git and rendered (created), or the source failed (sourceFailed). */
  | Extract<RevisionOutcome, { kind: "created" | "sourceFailed" }>
  /** Every render slot, or the namespace's share of them, is taken: come back later. */
  | { kind: "requeue"; requeueAfterMs: number }
  /**
   * The draft is handed to its repository's next push, which waits for the repository's other
   * writers: the revision is reconciled again when the push settles (pending-writes.ts).
   */
  | { kind: "pushPending" };

/**
 * Runs the source once (guarded by status.creationSource): computes the files (with its
 * PackageVariant's mutations, for a variant's draft), renders them (in a render slot),
 * commits the result in one push to the draft branch and mirrors it into the
 * PackageRevisionResources; its outcome is stated in two status writes (render, then core with
 * Ready), then announced (announceDraft). When other writers of the repository are on their
 * way, the push waits to go with theirs, and this reconcile does not wait for it: it ends with
 * pushPending, and the next one, once the push landed, goes on (no worker waits on a push
 * that gathers writers). Ready only ever follows the branch being in git.
 */
export async function reconcileSource(
  ctx: OperatorContext,
  pr: PackageRevision,
  repo: Repository,
  store: ContentStore,
): Promise<SourceOutcome> {
  if (!pr.spec?.source || pr.status?.creationSource) return { kind: "none" };
  const handedIn = pendingDraftsOf(ctx).take(keyOf(pr), pr.metadata?.uid ?? "");
  if (handedIn?.state === "pending") return { kind: "pushPending" };
  if (handedIn?.state === "failed") return pushFailure(handedIn.error);
  if (handedIn?.state === "landed")
    return finishSource(ctx, pr, store, handedIn.held, handedIn.info);
  // The source renders what it makes: it needs a render slot as a render does, but only
  // around the render. Fetching a clone source waits on a remote server, maybe a slow one,
  // and holds no slot meanwhile; it starts only when a slot is free, so a draft waiting for
  // one does not fetch again at every requeue. Nor does the push hold one.
  const namespace = pr.metadata?.namespace ?? "";
  const requeue = { kind: "requeue", requeueAfterMs: ctx.render.requeueDelayMs } as const;
  if (!ctx.render.slots.free(namespace)) return requeue;
  const result = await fetchSource(ctx, pr, repo);
  if ("kind" in result) return result;
  // Taken by others during the fetch: rare, and the fetch is repeated on the next turn.
  if (!ctx.render.slots.take(namespace)) return requeue;
  let rendered: RenderedSource;
  try {
    const { files, renderStatus, verdict } = await renderSource(ctx, pr, result.files);
    // Only who applied the mutations goes on: the files before the render are not kept.
    const mutations = result.mutations && { files: {}, appliedBy: result.mutations.appliedBy };
    rendered = { ...result, files, renderStatus, verdict, mutations };
  } finally {
    ctx.render.slots.release(namespace);
  }
  let written: Awaited<ReturnType<typeof writeDraft>>;
  try {
    written = await writeDraft(ctx, pr, store, rendered);
  } catch (error) {
    return pushFailure(error);
  }
  const registry = pendingDraftsOf(ctx);
  const bytes = heldBytes(rendered.files) + heapBytes(rendered.renderStatus);
  if (mayHandIn(ctx, pr, registry, bytes)) {
    const push = written.push();
    registry.handIn(keyOf(pr), pr.metadata?.uid ?? "", repositoryOf(pr), rendered, bytes, push);
    return { kind: "pushPending" };
  }
  let info: PackageRevisionInfo;
  try {
    info = await registry.writing(repositoryOf(pr), written.push());
  } catch (error) {
    return pushFailure(error);
  }
  return finishSource(ctx, pr, store, rendered, info);
}

/** The source's files, or the outcome when the source failed (stated in the status). */
async function fetchSource(
  ctx: OperatorContext,
  pr: PackageRevision,
  repo: Repository,
): Promise<SourceResult | SourceOutcome> {
  try {
    const made = await executeSource(ctx, pr, repo);
    // A variant's draft is made with its mutations: one render, one commit.
    const mutations = await withVariantMutations(ctx, pr, made.files);
    const result = { ...made, files: mutations.files, mutations };
    // Names from git or another revision's files: git would refuse them, or worse, take them.
    assertSafeFileNames(result.files, "the source's files");
    return result;
  } catch (error) {
    // A git server down or cut off mid-read: a retry will do (reconcile.ts says why on Ready).
    if (isTransientGitError(error)) throw error;
    // Failures of the inputs themselves: a retry would only fail again.
    const known =
      error instanceof SourceError ||
      error instanceof UpgradeError ||
      error instanceof KptfileError ||
      isGitStoreError(error) ||
      isPermanentError(error);
    if (!known) throw error;
    const reason = isPermanentError(error) ? error.reason : failureReason(error, "Failed");
    return { kind: "sourceFailed", reason, message: `create draft: ${errorMessage(error)}` };
  }
}

/** A draft's push failed: a workspace someone else took is the source's failure, stated. */
function pushFailure(error: unknown): SourceOutcome {
  if (!(error instanceof WorkspaceTakenError)) throw error;
  return { kind: "sourceFailed", reason: "AlreadyExists", message: error.message };
}

/** Once the draft is in git: mirrors its files, states its render (the source's outcome). */
async function finishSource(
  ctx: OperatorContext,
  pr: PackageRevision,
  store: ContentStore,
  rendered: RenderedSource,
  info: PackageRevisionInfo,
): Promise<SourceOutcome> {
  const { files, renderStatus, verdict } = rendered;
  const written = await writeResources(ctx, pr, files, MANAGER.render);
  // An edit made since is newer content: its own event renders it; this status is of ours.
  const observed = await writeRenderStatus(ctx, written, renderStatus).catch(error => {
    if (isConflict(error)) return written;
    throw error;
  });
  if (rendered.mutations) noteSourceMutations(ctx, pr, rendered.mutations, observed);
  const packageConditions = await syncKptfile(ctx, pr, files);
  const kptfile = readKptfile(files.Kptfile ?? "");
  return {
    kind: "created",
    lifecycle: (pr.spec?.lifecycle ?? "Draft") as Lifecycle,
    verdict,
    observedPrrResourceVersion: observed.metadata?.resourceVersion,
    packageConditions,
    fields: {
      creationSource: rendered.creationSource,
      selfLock: lockOf(store.config.url, info),
      upstreamLock: kptfile.ok ? kptfile.upstreamLock : undefined,
      revision: 0,
    },
    ...(rendered.conflicts && { conflicts: rendered.conflicts.map(c => c.message) }),
  };
}

/**
 * After a created outcome is stated (`stated`, as the status write answered): the new revision
 * gets the latest label's "false" (it is not the latest until published; it changes no other
 * revision's label, so they are not listed, and a variant's draft has it already; the status
 * write's answer carries the resourceVersion a patch of a revision without labels needs), and
 * merge conflicts are announced.
 */
export async function announceDraft(
  ctx: OperatorContext,
  pr: PackageRevision,
  stated: PackageRevision,
  outcome: Extract<SourceOutcome, { kind: "created" }>,
): Promise<void> {
  await updateLatestLabels(ctx, [stated]);
  if (outcome.conflicts?.length) {
    await ctx.cluster.event(
      pr,
      "Warning",
      "MergeConflicts",
      `${outcome.conflicts.length} field(s) changed on both sides; upstream kept, see condition Upgraded`,
    );
  }
}
