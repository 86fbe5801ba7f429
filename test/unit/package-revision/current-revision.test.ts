// The PackageRevision controller reads its revision from git with the store's one ranking
// (ContentStore.findRevision), not with a ranking of its own.
import type { OperatorContext } from "../../../capabilities/context";
import type { PackageRevision } from "../../../crd-types";
import type { ContentStore, PackageRevisionInfo, PackageRevisionKey } from "../../../lib/git";
import { selectRevision } from "../../../lib/git/revision-rank";

import { reconcileLifecycle } from "../../../capabilities/package-revision/lifecycle";

const tag = (revision: number): PackageRevisionInfo => ({
  packageName: "app",
  workspaceName: "w",
  lifecycle: "Published",
  revision,
  commit: `c${revision}`,
  ref: `refs/tags/app/v${revision}`,
  path: "app",
});

/** What git lists (in discovery's order, lowest revision first), ranked as the real store ranks it. */
function storeOf(revisions: PackageRevisionInfo[]): ContentStore {
  return {
    config: { url: "https://example.com/repo.git" },
    listPackageRevisions: async () => revisions,
    findRevision: async (key: PackageRevisionKey) => selectRevision(revisions, key),
  } as unknown as ContentStore;
}

it("reports the highest tag when two tags of the workspace are in git", async () => {
  const pr = {
    metadata: { name: "repo.app.w", namespace: "ns", generation: 1 },
    spec: { repository: "repo", packageName: "app", workspaceName: "w", lifecycle: "Published" },
  } as PackageRevision;
  // The step writes nothing (its outcome is stated by the caller): no context is needed.
  const ctx = {} as OperatorContext;
  const outcome = await reconcileLifecycle(ctx, pr, storeOf([tag(1), tag(2)]));
  expect(outcome).toMatchObject({ kind: "inGit", fields: { revision: 2 } });
});
