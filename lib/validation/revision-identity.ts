import { REPOSITORY_UID_ANNOTATION } from "../packages/deletion";

/** What identifies a package revision's content in git: repository, package and workspace. */
export interface RevisionIdentity {
  name: string;
  repository?: string;
  packageName?: string;
  workspaceName?: string;
}

/**
 * Another object already naming this repository, package and workspace: a new PackageRevision
 * would take over that revision's content (and delete it with itself), so it is refused, as
 * the reference refuses a duplicate workspaceName. Undefined when the workspace is free.
 */
export function workspaceTakenProblem(
  pr: RevisionIdentity,
  others: readonly RevisionIdentity[],
): string | undefined {
  const taken = others.find(
    o =>
      o.name !== pr.name &&
      o.repository === pr.repository &&
      o.packageName === pr.packageName &&
      o.workspaceName === pr.workspaceName,
  );
  if (!taken) return undefined;
  return `spec.workspaceName: package "${pr.packageName}" of repository "${pr.repository}" already has workspace "${pr.workspaceName}": PackageRevision "${taken.name}"; workspaceNames must be unique per package`;
}

/**
 * The recorded Repository UID decides whether deleting the revision may delete git content
 * (lib/packages/deletion), so once recorded it is not changed.
 */
export function repositoryUidProblem(
  annotations: Record<string, string> | undefined,
  oldAnnotations: Record<string, string> | undefined,
): string | undefined {
  const old = oldAnnotations?.[REPOSITORY_UID_ANNOTATION];
  if (old === undefined || annotations?.[REPOSITORY_UID_ANNOTATION] === old) return undefined;
  return `metadata.annotations[${REPOSITORY_UID_ANNOTATION}] is immutable`;
}
