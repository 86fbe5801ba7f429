import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { PackageRevisionKind, Repository, RepositoryKind } from "../../../crd-types";
import { NamespaceKind } from "../../../lib/cluster/kinds";
import { refOf } from "../../../lib/cluster/port";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { draftRevision, kptfile, NS } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";

/**
 * Deletion decides whether git content goes by whether the revision's Repository still exists.
 * That answer comes from the API server: the watch's cache may still hold a Repository deleted
 * a moment ago (the garbage collector then deletes its revisions), and a revision of a deleted
 * Repository must leave git alone.
 */
describe("deleting a revision whose Repository was just deleted", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("leaves git alone though the watch's cache still holds the Repository", async () => {
    await h.cluster.create(NamespaceKind, { metadata: { name: NS } });
    const { pr, store, key } = await draftRevision(h, { Kptfile: kptfile("app") });
    const repo = await h.cluster.get(RepositoryKind, { namespace: NS, name: "repo" });
    h.ctx.caches.repositories.upsert(JSON.parse(JSON.stringify(repo)) as Repository);
    await h.cluster.patch(
      PackageRevisionKind,
      refOf(pr),
      { merge: { status: { creationSource: "init" } } },
      { status: true },
    );
    await reconcilePackageRevision(`${NS}/${pr.metadata?.name}`, h.ctx); // finalizer, annotation

    await h.cluster.delete(RepositoryKind, { namespace: NS, name: "repo" });
    await h.cluster.delete(PackageRevisionKind, refOf(pr));
    await reconcilePackageRevision(`${NS}/${pr.metadata?.name}`, h.ctx);

    expect(await h.cluster.get(PackageRevisionKind, refOf(pr))).toBeUndefined();
    await expect(store.getPackageContent(key)).resolves.toMatchObject({
      files: { Kptfile: kptfile("app") },
    });
  });
});
