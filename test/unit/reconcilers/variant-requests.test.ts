import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { reconcilePackageVariant } from "../../../capabilities/package-variant/reconcile";
import { PackageRevisionKind, PackageVariantKind } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, NS } from "./fixtures";
import { deliverWatched, variantScene, writesOf } from "./scenes";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

/**
 * What one PackageVariant's creation costs the API server, end to end: the variant's and its
 * new draft's reconciles, run in turn as their events would run them, until neither writes.
 * Each reconcile first sees every object as the watches would have delivered it, so a read
 * answered by a cache costs nothing here, as in the operator. Counted as the bench counts
 * (bench/metrics.ts: the porch kinds and Events, watches apart).
 */
describe("one PackageVariant's creation", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  /** The requests of `reconcile`, the watches having delivered everything before it. */
  async function requestsOf(reconcile: () => Promise<unknown>): Promise<string[]> {
    await deliverWatched(h);
    const calls = h.callsFrom();
    await reconcile();
    return calls().filter(c => !c.startsWith("watch ") && !c.startsWith("resources "));
  }

  it("costs 7 API requests until the variant is Ready and nothing is left to do", async () => {
    const scene = await variantScene(h);

    const requests: string[] = [];
    const draftKey = () => {
      const [draft] = h.ctx.caches.revisions.cache.by("package", `${NS}/deployments/app`);
      return `${NS}/${draft?.metadata?.name}`;
    };
    // The variant, then its draft, and so on, as long as a reconcile writes something.
    for (let turn = 0; turn < 6; turn++) {
      const variant = await requestsOf(() => reconcilePackageVariant(`${NS}/pv`, h.ctx));
      const revision = await requestsOf(() => reconcilePackageRevision(draftKey(), h.ctx));
      requests.push(...variant, ...revision);
      if (writesOf([...variant, ...revision]).length === 0) break;
    }

    const pv = await current(h.cluster, PackageVariantKind, scene.pv);
    expect(pv.status?.conditions?.find(c => c.type === "Ready")).toMatchObject({
      status: "True",
    });
    const [draft] = await h.cluster.list(PackageRevisionKind, {
      namespace: NS,
      fields: { "spec.repository": "deployments" },
    });
    expect(draft.metadata?.finalizers).toContain("porch.kpt.dev/packagerevisions");
    expect(draft.metadata?.ownerReferences?.map(o => o.kind).sort()).toEqual([
      "PackageVariant",
      "Repository",
    ]);
    expect(draft.metadata?.labels?.["porch.kpt.dev/latest-revision"]).toBe("false");
    // Its draft is created with the finalizer, owner reference and latest-revision label the
    // PackageRevision controller would patch in (a LIST of the package's revisions before), the
    // source's outcome is stated in one status apply (two before: render, then core), the
    // variant's check knows from the source that the files it wrote carry its mutations (it read
    // them before), and the variant's status is written once, Ready with the render status the
    // render kept (not first as waiting for the draft's source).
    const draftName = `${NS}/${draft.metadata?.name}`;
    expect(requests).toEqual([
      `create PackageRevision ${draftName}`,
      "event PackageVariant ns/pv",
      `apply PackageRevisionResources ${draftName}`,
      `apply PackageRevisionResources ${draftName} (status)`,
      `apply PackageRevision ${draftName}`,
      `apply PackageRevision ${draftName} (status)`,
      "patch PackageVariant ns/pv (status)",
    ]);
  });
});
