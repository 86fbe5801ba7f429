import { PackageRevision, PackageRevisionKind } from "../../crd-types";
import type { GitLock } from "../../lib/kpt";
import { lockOf } from "../../lib/git";
import type { PackageContent } from "../../lib/git";
import type { OperatorContext } from "../context";
import { gitKey } from "./git-key";

export class SourceError extends Error {}

export interface RevisionContent {
  pr: PackageRevision;
  content: PackageContent;
  /** Where the content came from, as a Kptfile upstreamLock records it. */
  lock: GitLock;
}

/** The content of another PackageRevision (an upstream, the revision being copied, ...). */
export async function contentOf(
  ctx: OperatorContext,
  namespace: string,
  name: string,
  role: string,
): Promise<RevisionContent> {
  const pr = await ctx.cluster.get(PackageRevisionKind, { namespace, name });
  if (!pr) throw new SourceError(`${role} PackageRevision "${name}" not found`);
  const repo = await ctx.stores.named(namespace, pr.spec?.repository ?? "");
  if (!repo)
    throw new SourceError(
      `repository "${pr.spec?.repository}" of ${role} "${name}" not found or being deleted`,
    );
  const content = await repo.store.getPackageContent(gitKey(pr));
  const lock = lockOf(repo.store.config.url, content.info).git;
  return { pr, content, lock };
}
