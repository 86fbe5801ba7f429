import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { mirrorRevisions } from "../../../capabilities/repository/mirror";
import { PackageRevisionKind, RepositoryKind } from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, NS, renderedDraft } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

/**
 * A sync lists the PackageRevisions before it reads git (mirror.ts says why). A revision
 * created through the API between the two is in git but not in the listing: the sync must not
 * write what git said over the object, which by then may ask for more. Its forced apply used to
 * set a proposal's spec back to Draft, and the PackageRevision controller then moved git back
 * to drafts/ (found while chasing the fault campaign's watcher-kill failure).
 */
describe("a sync that finds in git a revision created after its listing", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("leaves the object's spec and git as they are", async () => {
    const d = await renderedDraft(h);
    const repo = await current(h.cluster, RepositoryKind, {
      metadata: { namespace: NS, name: "repo" },
    });
    const gitThen = await d.store.listPackageRevisions(); // the revision a Draft in git
    await h.cluster.patch(PackageRevisionKind, refOf(d.pr), {
      merge: { spec: { lifecycle: "Proposed" } },
    });
    await reconcilePackageRevision(d.queueKey, h.ctx);

    const result = await mirrorRevisions(h.ctx, repo, d.store, gitThen, []);

    expect(result.created).toBe(0);
    const pr = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(pr.spec?.lifecycle).toBe("Proposed");
    await reconcilePackageRevision(d.queueKey, h.ctx);
    expect((await d.store.getPackageContent(d.key)).info.lifecycle).toBe("Proposed");
  });
});
