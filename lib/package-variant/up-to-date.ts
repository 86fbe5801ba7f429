// Which upstream revision a downstream was made from (its status.upstreamLock.git.ref) and
// whether that is the upstream the PackageVariant selects now (docs/package-variants.md,
// “Upstream tracking”). Only the lock is read: no package content is needed.
import type { PackageRevision } from "../../crd-types";
import { revisionFromTag } from "../git/layout";
import { isPublished } from "../git/types";
import { upstreamNotFoundMessage } from "../packages/upstream";

/** What the lock ref says; `path` is the package path in git ("" when the ref has none). */
export type LockedUpstream =
  | { kind: "unknown" }
  | { kind: "draft"; ref: string; path: string; workspace: string }
  /** `<path>/v<N>`; revision is -1 when the last segment is not `v<N>` / `<N>`. */
  | { kind: "revision"; ref: string; path: string; revision: number };

function splitLast(ref: string): { path: string; leaf: string } {
  const slash = ref.lastIndexOf("/");
  return { path: slash < 0 ? "" : ref.slice(0, slash), leaf: ref.slice(slash + 1) };
}

export function lockedUpstream(pr: PackageRevision): LockedUpstream {
  const raw = pr.status?.upstreamLock?.git?.ref;
  if (!raw) return { kind: "unknown" };
  // Porch writes short refs (`nginx/v1`, `drafts/nginx/ws`); accept full ones as well.
  const ref = raw.replace(/^refs\/(heads|tags)\//, "");
  if (ref.startsWith("drafts")) {
    const { path, leaf } = splitLast(ref.replace(/^drafts\/?/, ""));
    return { kind: "draft", ref: raw, path, workspace: leaf };
  }
  const { path, leaf } = splitLast(ref);
  return { kind: "revision", ref: raw, path, revision: revisionFromTag(leaf) };
}

/**
 * Whether a lock path names this package. The path in git starts with the repository's
 * directory, which a PackageRevision does not carry, so a suffix match is the best available.
 */
function pathNames(path: string, packageName: string | undefined): boolean {
  if (path === "" || !packageName) return true;
  return path === packageName || path.endsWith(`/${packageName}`);
}

/** The revision number of a published upstream, else undefined. */
export function publishedRevision(pr: PackageRevision): number | undefined {
  return isPublished(pr.spec?.lifecycle) ? pr.status?.revision : undefined;
}

/**
 * The reference's comparison (docs/package-variants.md, “Upstream tracking”), with the
 * selected upstream standing for spec.upstream.revision (so `latest` means the newest
 * published revision, as selectUpstream picks it):
 * - no lock or no ref: up to date (the reference logs a warning; a draft whose source has not
 *   run yet has no lock either);
 * - a lock of another package (path not ending in the upstream's package name): not up to date
 *   (the reference compares only numbers and misses a change of upstream package);
 * - `drafts/...`: not up to date, unless the selected upstream is that very unpublished
 *   revision (selected by workspaceName), which would otherwise be upgraded forever;
 * - `<path>/v<N>`: up to date when N is the selected upstream's published revision.
 */
export function isUpToDate(downstream: PackageRevision, upstream: PackageRevision): boolean {
  const lock = lockedUpstream(downstream);
  if (lock.kind === "unknown") return true;
  if (!pathNames(lock.path, upstream.spec?.packageName)) return false;
  if (lock.kind === "draft") {
    return (
      !isPublished(upstream.spec?.lifecycle) && upstream.spec?.workspaceName === lock.workspace
    );
  }
  const wanted = publishedRevision(upstream);
  return wanted !== undefined && lock.revision === wanted;
}

export function noUpstreamLockMessage(downstream: string): string {
  return `downstream "${downstream}" has no status.upstreamLock.git.ref, so its upstream revision is unknown`;
}

export type OldUpstream = { found: PackageRevision } | { error: string };

/**
 * The upstream revision a downstream was made from, to be the base of a three-way merge: the
 * published revision N of `<path>/v<N>`, or the revision with workspace W of `drafts/<path>/W`
 * (drafts keep their workspace name when published), in the PackageVariant's upstream repository.
 */
export function findOldUpstream(
  downstream: PackageRevision,
  upstream: { repo?: string; package?: string },
  revisions: readonly PackageRevision[],
): OldUpstream {
  const name = downstream.metadata?.name ?? "";
  const lock = lockedUpstream(downstream);
  if (lock.kind === "unknown") return { error: noUpstreamLockMessage(name) };
  if (lock.kind === "revision" && lock.revision === 0) {
    return { error: "upstream cannot be published with revision number 0" };
  }
  if (lock.kind === "revision" && lock.revision < 0) {
    return {
      error: `downstream "${name}" has upstream lock ref "${lock.ref}", which names no published revision`,
    };
  }
  const candidates = revisions
    .filter(pr => pr.spec?.repository === upstream.repo && !pr.metadata?.deletionTimestamp)
    .filter(pr => pathNames(lock.path, pr.spec?.packageName))
    .filter(pr =>
      lock.kind === "draft"
        ? pr.spec?.workspaceName === lock.workspace
        : publishedRevision(pr) === lock.revision,
    )
    // The longest package name matching the path is the most specific one.
    .sort((a, b) => (b.spec?.packageName ?? "").length - (a.spec?.packageName ?? "").length);
  if (candidates[0]) return { found: candidates[0] };
  const pkg = pathNames(lock.path, upstream.package) ? upstream.package : lock.path;
  return {
    error: upstreamNotFoundMessage(
      lock.kind === "draft"
        ? { repo: upstream.repo, package: pkg, workspaceName: lock.workspace }
        : { repo: upstream.repo, package: pkg, revision: lock.revision },
    ),
  };
}
