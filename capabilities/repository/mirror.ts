import {
  PackageRevision,
  PackageRevisionKind,
  PackageRevisionStatus,
  Repository,
} from "../../crd-types";
import { mapLimit } from "../../lib/controller/concurrency";
import {
  ContentStore,
  GitStoreError,
  isGitStoreError,
  isRefusedContent,
  isPublished,
  PackageRevisionInfo,
  lockOf,
  PackageContent,
} from "../../lib/git";
import { FIELD_MANAGERS } from "../../lib/package-revision/field-managers";
import { packageRevisionObjectName } from "../../lib/packages/naming";
import type { OperatorContext } from "../context";
import { updateLatestLabels } from "../shared/latest-revision-labels";
import { ownerOf, writeResources } from "../shared/package-resources";

export const REPOSITORY_LABEL = "porch.kpt.dev/repository";
export const FIELD_MANAGER = FIELD_MANAGERS.repository;
const CONCURRENCY = 8;

/**
 * Every PackageRevision of the repository: those this controller mirrored from git and those
 * created through the API (which carry no repository label). A revision missed here would look
 * absent and be mirrored again over its own files.
 */
export async function listMirrored(
  ctx: OperatorContext,
  repo: Repository,
): Promise<PackageRevision[]> {
  return ctx.cluster.list(PackageRevisionKind, {
    namespace: repo.metadata?.namespace,
    fields: { "spec.repository": repo.metadata?.name ?? "" },
  });
}

/** A revision's files, or why the operator does not carry them (said in its Synced condition). */
type ReadContent = PackageContent | GitStoreError;

async function readContent(store: ContentStore, info: PackageRevisionInfo): Promise<ReadContent> {
  try {
    return await store.getPackageContent(info);
  } catch (error) {
    if (isRefusedContent(error)) return error;
    throw error;
  }
}

/** Synced: read from git, or why not (content refused, a Kptfile that does not read). */
function syncedCondition(info: PackageRevisionInfo, content: ReadContent, now: Date) {
  const [status, reason, message]: ["True" | "False", string, string] =
    content instanceof GitStoreError
      ? ["False", content.code, `${NOT_MIRRORED}${content.message}`]
      : info.kptfileError
        ? ["False", "InvalidKptfile", info.kptfileError]
        : ["True", "Synced", "read from git"];
  return { type: "Synced", status, reason, message, lastTransitionTime: now.toISOString() };
}

/** What git says about a revision, under this controller's field manager. */
function gitStatus(
  store: ContentStore,
  info: PackageRevisionInfo,
  content: ReadContent,
  now: Date,
): PackageRevisionStatus {
  return {
    revision: info.revision,
    selfLock: lockOf(store.config.url, info),
    ...(info.publishedAt && { publishedAt: info.publishedAt }),
    ...(info.publishedBy && { publishedBy: info.publishedBy }),
    conditions: [syncedCondition(info, content, now)],
  };
}

/** What git says about a revision and its content, applied to its status. */
async function applyGitStatus(
  ctx: OperatorContext,
  name: string,
  namespace: string,
  store: ContentStore,
  info: PackageRevisionInfo,
  content: ReadContent,
): Promise<void> {
  const status = {
    ...gitStatus(store, info, content, ctx.now()),
    ...(!(content instanceof GitStoreError) &&
      content.upstreamLock && { upstreamLock: content.upstreamLock }),
  };
  await ctx.cluster.apply(
    PackageRevisionKind,
    { metadata: { name, namespace }, status },
    FIELD_MANAGER,
    {
      status: true,
    },
  );
}

/**
 * A revision found in git becomes a PackageRevision (and its files a PackageRevisionResources).
 * Created, never applied: an object of that name made through the API after the sync listed
 * (its source pushed before the sync read git) is newer than what git said then, and may ask
 * for more (a proposal); writing git's lifecycle over it would move git back. Says whether it
 * created one; an existing object is refreshed by the next sync. Files the operator does not
 * carry are not written; the revision's Synced condition says why, and `refused` counts it.
 */
async function createMirror(
  ctx: OperatorContext,
  repo: Repository,
  store: ContentStore,
  info: PackageRevisionInfo,
  refused: Refused[],
): Promise<boolean> {
  const namespace = repo.metadata?.namespace ?? "";
  const name = packageRevisionObjectName(
    repo.metadata?.name ?? "",
    info.packageName,
    info.workspaceName,
  );
  const pr = await ctx.cluster.create(
    PackageRevisionKind,
    {
      metadata: {
        name,
        namespace,
        labels: { [REPOSITORY_LABEL]: repo.metadata?.name ?? "" },
        ownerReferences: [ownerOf(repo)],
      },
      spec: {
        packageName: info.packageName,
        repository: repo.metadata?.name,
        workspaceName: info.workspaceName,
        lifecycle: info.lifecycle,
      },
    },
    { tolerateExisting: true },
  );
  if (!pr) return false;
  const content = await readContent(store, info);
  await applyGitStatus(ctx, name, namespace, store, info, content);
  if (content instanceof GitStoreError) refused.push({ name, message: content.message });
  else await writeResources(ctx, pr, content.files, FIELD_MANAGER);
  return true;
}

/**
 * Brings an existing object in line with git: status from git; a lifecycle git moved forward
 * (published elsewhere) is adopted into spec, a lifecycle the user asked for is left alone;
 * a published revision whose commit changed gets its files refreshed.
 */
async function refreshMirror(
  ctx: OperatorContext,
  store: ContentStore,
  info: PackageRevisionInfo,
  pr: PackageRevision,
  refused: Refused[],
) {
  const name = pr.metadata?.name ?? "";
  const namespace = pr.metadata?.namespace ?? "";
  // Published elsewhere (another Porch, git by hand): no one can unpublish, so adopting it
  // into spec is safe. Any other difference is a move the PackageRevision controller owns.
  if (
    info.lifecycle === "Published" &&
    (pr.spec?.lifecycle === "Draft" || pr.spec?.lifecycle === "Proposed")
  ) {
    await ctx.cluster.apply(
      PackageRevisionKind,
      {
        metadata: { name, namespace },
        // Every spec field: one this manager applied before and left out would be dropped.
        spec: {
          packageName: info.packageName,
          repository: pr.spec?.repository,
          workspaceName: info.workspaceName,
          lifecycle: "Published",
        },
      },
      FIELD_MANAGER,
    );
  }
  const lock = pr.status?.selfLock?.git;
  const synced = pr.status?.conditions?.find(c => c.type === "Synced");
  if (lock?.commit === info.commit && pr.status?.revision === info.revision) {
    // Refused at this commit already: said on the revision, counted again, not read again.
    if (synced?.status === "False" && REFUSED_REASONS.includes(synced.reason ?? ""))
      refused.push({ name, message: (synced.message ?? "").replace(NOT_MIRRORED, "") });
    return;
  }
  const content = await readContent(store, info);
  await applyGitStatus(ctx, name, namespace, store, info, content);
  if (content instanceof GitStoreError) refused.push({ name, message: content.message });
  else if (isPublished(info.lifecycle)) await writeResources(ctx, pr, content.files, FIELD_MANAGER);
}

/**
 * An object whose revision left git goes too, but only one that git once backed (its source
 * ran or a sync saw it): a PackageRevision just created by a user waits for its source.
 */
function backedByGit(pr: PackageRevision): boolean {
  return Boolean(pr.status?.creationSource || pr.status?.selfLock?.git?.commit);
}

async function deleteMirror(ctx: OperatorContext, pr: PackageRevision): Promise<void> {
  await ctx.cluster.delete(PackageRevisionKind, {
    namespace: pr.metadata?.namespace,
    name: pr.metadata?.name ?? "",
  });
}

const workspaceOf = (r: { packageName?: string; workspaceName?: string }) =>
  `${r.packageName ?? ""}\u0000${r.workspaceName ?? ""}`;

/** A revision mirrored without its files: its object name and why. */
export interface Refused {
  name: string;
  message: string;
}

const REFUSED_REASONS = ["ContentTooLarge", "NotUTF8"];
const NOT_MIRRORED = "its files are not mirrored: ";

export interface MirrorResult {
  created: number;
  deleted: number;
  packages: number;
  /** Revisions mirrored without their files, by name. */
  refused: Refused[];
}

/**
 * Makes the PackageRevision objects of one repository match git. `existing` must be listed
 * before git is read: an object a PackageRevision reconcile created after our read would
 * otherwise look like one whose revision left git.
 */
export async function mirrorRevisions(
  ctx: OperatorContext,
  repo: Repository,
  store: ContentStore,
  revisions: PackageRevisionInfo[],
  existing: PackageRevision[],
): Promise<MirrorResult> {
  // An object created through the API under another name stands for its package and
  // workspace too: mirroring a second one would give that content two owners.
  const byName = new Map(existing.map(pr => [pr.metadata?.name ?? "", pr]));
  const byWorkspace = new Map(existing.map(pr => [workspaceOf(pr.spec ?? {}), pr]));
  const inGit = new Set<string>();
  const refused: Refused[] = [];
  let created = 0;
  await mapLimit(revisions, CONCURRENCY, async info => {
    const name = packageRevisionObjectName(
      repo.metadata?.name ?? "",
      info.packageName,
      info.workspaceName,
    );
    inGit.add(workspaceOf(info));
    const pr = byName.get(name) ?? byWorkspace.get(workspaceOf(info));
    try {
      // Created through the API and its source not run yet: what git has may not be its
      // content (the source step says whether it is), so git is not mirrored into it.
      if (pr) {
        if (!pr.spec?.source || backedByGit(pr)) await refreshMirror(ctx, store, info, pr, refused);
      } else {
        if (await createMirror(ctx, repo, store, info, refused)) created++;
      }
    } catch (error) {
      // A revision that vanished between the listing and the read is picked up next sync.
      if (!isGitStoreError(error, "NotFound")) throw error;
    }
  });
  const gone = existing.filter(pr => !inGit.has(workspaceOf(pr.spec ?? {})) && backedByGit(pr));
  await mapLimit(gone, CONCURRENCY, pr => deleteMirror(ctx, pr));
  await updateLatestLabels(ctx, await listMirrored(ctx, repo));
  return {
    created,
    deleted: gone.length,
    packages: new Set(revisions.map(r => r.packageName)).size,
    refused: refused.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
}
