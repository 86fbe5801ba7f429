import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { reconcilePackageVariant } from "../../../capabilities/package-variant/reconcile";
import {
  PackageRevisionKind,
  PackageRevisionResourcesKind,
  PackageVariantKind,
} from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { INJECTION_POINT } from "../../../bench/scenarios/fleet-fanout";
import { ConfigMapKind } from "../../../lib/cluster/kinds";
import { configMap, current, kptfile, NS, seed } from "./fixtures";
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

  const draftKey = () => {
    const [draft] = h.ctx.caches.revisions.cache.by("package", `${NS}/deployments/app`);
    return `${NS}/${draft?.metadata?.name}`;
  };

  /** A variant's seven: its draft, event, files, render status, spec, status; its status. */
  const sevenRequests = (draftName: string) => [
    `create PackageRevision ${draftName}`,
    "event PackageVariant ns/pv",
    `apply PackageRevisionResources ${draftName}`,
    `apply PackageRevisionResources ${draftName} (status)`,
    `apply PackageRevision ${draftName}`,
    `apply PackageRevision ${draftName} (status)`,
    "patch PackageVariant ns/pv (status)",
  ];

  /** The variant, then its draft, and so on, as long as a reconcile writes something. */
  async function untilQuiet(): Promise<string[]> {
    const requests: string[] = [];
    for (let turn = 0; turn < 6; turn++) {
      const variant = await requestsOf(() => reconcilePackageVariant(`${NS}/pv`, h.ctx));
      const revision = await requestsOf(() => reconcilePackageRevision(draftKey(), h.ctx));
      requests.push(...variant, ...revision);
      if (writesOf([...variant, ...revision]).length === 0) break;
    }
    return requests;
  }

  it("costs 7 API requests until the variant is Ready and nothing is left to do", async () => {
    const scene = await variantScene(h);

    const requests = await untilQuiet();

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
    expect(requests).toEqual(sevenRequests(draftName));
  });

  describe("a fleet variant (package context, a prepended mutator, an injected ConfigMap)", () => {
    const injected = `get ConfigMap ${NS}/fleet-defaults`;
    const porch = (calls: string[]) => calls.filter(c => !c.startsWith("get ConfigMap "));
    const filesOf = async () =>
      (
        await current(h.cluster, PackageRevisionResourcesKind, {
          metadata: { name: draftKey().split("/")[1], namespace: NS },
        })
      ).spec?.resources ?? {};

    beforeEach(async () => {
      h.cluster.serve(ConfigMapKind, { statusSubresource: false });
      await seed(h.cluster, ConfigMapKind, {
        metadata: { name: "fleet-defaults", namespace: NS },
        data: { tier: "gold" },
      });
      await variantScene(h, {
        upstreamFiles: {
          Kptfile: kptfile("base"),
          "tenant-defaults.yaml": INJECTION_POINT,
          "cm.yaml": configMap("a"),
        },
        deployments: { deployment: true },
        variant: {
          packageContext: { data: { region: "eu-west" } },
          pipeline: {
            mutators: [{ name: "fleet", image: "set-labels:v0.2", configMap: { fleet: "a" } }],
          },
          injectors: [{ kind: "ConfigMap", name: "fleet-defaults" }],
        },
      });
    });

    it("costs the same 7 requests of the porch kinds as a plain variant", async () => {
      const requests = await untilQuiet();

      const pv = await current(h.cluster, PackageVariantKind, {
        metadata: { name: "pv", namespace: NS },
      });
      expect(pv.status?.conditions?.find(c => c.type === "Ready")).toMatchObject({
        status: "True",
      });
      const files = await filesOf();
      expect(files["tenant-defaults.yaml"]).toContain("tier: gold");
      expect(files["package-context.yaml"]).toContain("region: eu-west");
      expect(files["cm.yaml"]).toContain("fleet: a");
      const draft = await current(h.cluster, PackageRevisionKind, {
        metadata: { name: draftKey().split("/")[1], namespace: NS },
      });
      // The injection's condition, stated by the source's one status apply.
      expect(draft.status?.packageConditions).toEqual([
        expect.objectContaining({
          type: "config.injection.ConfigMap.tenant-defaults",
          status: "True",
        }),
      ]);
      // The variant's check confirms the injected ConfigMap is the version the source read
      // (its one read) instead of reading the draft's files (a GET of the largest object), and
      // the Kptfile's conditions go with the source's outcome instead of an apply of their own.
      const draftName = draftKey();
      expect(porch(requests)).toEqual(sevenRequests(draftName));
      // One read by the source, to inject it, and one by each check of the variant (two: the
      // last turn's, which finds nothing to do, confirms it too).
      expect(requests.filter(c => c === injected)).toHaveLength(3);
    });

    it("reads the files and injects again once the injected ConfigMap changed", async () => {
      await untilQuiet();
      await h.cluster.patch(
        ConfigMapKind,
        { name: "fleet-defaults", namespace: NS },
        { merge: { data: { tier: "platinum" } } },
      );

      const requests = await untilQuiet();

      expect(requests).toContain(`get PackageRevisionResources ${draftKey()}`);
      expect(requests).toContain(`apply PackageRevisionResources ${draftKey()}`);
      expect((await filesOf())["tenant-defaults.yaml"]).toContain("tier: platinum");
    });
  });
});
