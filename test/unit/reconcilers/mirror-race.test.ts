import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { mirrorRevisions } from "../../../capabilities/repository/mirror";
import { PackageRevisionKind, RepositoryKind } from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, draftRevision, labellingKptfile, NS, type Draft } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const files = { Kptfile: labellingKptfile("app"), "configmap.yaml": configMap("app") };

/**
 * A sync lists the PackageRevisions before it reads git (mirror.ts says why). A revision
 * created through the API between the two is in git but not in the listing: the sync must not
 * write what git said over the object, which by then may ask for more (found by the fault
 * campaign: a proposal's spec went back to Draft, its branch back to drafts/, and its publish
 * failed).
 */
describe("a sync that finds in git a revision created after its listing", () => {
  let h: TestOperator;
  let d: Draft;
  let key: string;
  beforeEach(async () => {
    h = await testOperator();
    d = await draftRevision(h, files);
    key = `${NS}/${d.pr.metadata?.name}`;
    await reconcilePackageRevision(key, h.ctx); // rendered
  });
  afterEach(() => h.close());

  it("leaves the object's spec and git as they are", async () => {
    const repo = await current(h.cluster, RepositoryKind, {
      metadata: { namespace: NS, name: "repo" },
    });
    const listedBefore: never[] = []; // the object did not exist yet when the sync listed
    const gitThen = await d.store.listPackageRevisions(); // the revision a Draft in git
    await h.cluster.patch(PackageRevisionKind, refOf(d.pr), {
      merge: { spec: { lifecycle: "Proposed" } },
    });
    await reconcilePackageRevision(key, h.ctx);

    const result = await mirrorRevisions(h.ctx, repo, d.store, gitThen, listedBefore);

    expect(result.created).toBe(0);
    const pr = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(pr.spec?.lifecycle).toBe("Proposed");
    await reconcilePackageRevision(key, h.ctx);
    expect((await d.store.getPackageContent(d.key)).info.lifecycle).toBe("Proposed");
  });
});
