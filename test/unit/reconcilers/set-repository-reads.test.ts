import { reconcilePackageVariantSet } from "../../../capabilities/package-variant-set/reconcile";
import {
  PackageRevision,
  PackageRevisionKind,
  PackageVariantKind,
  PackageVariantSet,
  PackageVariantSetKind,
  RepositoryKind,
} from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { NS, repositoryObject, seed } from "./fixtures";

// A set reconciles at every change of its variants (a thousand times in a fan-out); its
// templates read the namespace's Repositories from the watch's cache, not from a LIST each time.
describe("a PackageVariantSet's Repositories", () => {
  let h: TestOperator;
  const reconcile = () => reconcilePackageVariantSet(`${NS}/set`, h.ctx);
  const repositoryLists = (calls: string[]) => calls.filter(c => c.startsWith("list Repository"));

  beforeEach(async () => {
    h = await testOperator();
    h.ctx.caches.revisions.cache.upsert(
      await seed(h.cluster, PackageRevisionKind, {
        metadata: { name: "blueprints.app.v1", namespace: NS },
        spec: {
          repository: "blueprints",
          packageName: "app",
          workspaceName: "v1",
          lifecycle: "Published",
        },
        status: { revision: 1 },
      } as PackageRevision),
    );
    await seed(
      h.cluster,
      RepositoryKind,
      repositoryObject("edge", "https://git.example.com/e.git"),
    );
    await seed(h.cluster, PackageVariantSetKind, {
      metadata: { name: "set", namespace: NS },
      spec: {
        upstream: { repo: "blueprints", package: "app", revision: 1 },
        targets: [{ repositories: [{ name: "edge" }, { name: "core" }] }],
      },
    } as PackageVariantSet);
  });
  afterEach(() => h.close());

  it("are listed once per namespace, then read from the watch's cache", async () => {
    const calls = h.callsFrom();
    await reconcile();
    await reconcile();
    await reconcile();
    expect(repositoryLists(calls())).toHaveLength(1);
  });

  it("include one the watch delivered after the first reconcile", async () => {
    await reconcile();
    const variants = async () =>
      (await h.cluster.list(PackageVariantKind, { namespace: NS })).map(v => v.metadata?.name);
    expect(await variants()).toEqual(["set-edge-app"]);
    const core = await seed(
      h.cluster,
      RepositoryKind,
      repositoryObject("core", "https://git.example.com/c.git"),
    );
    h.ctx.caches.repositories.upsert(core);
    await reconcile();
    expect((await variants()).sort()).toEqual(["set-core-app", "set-edge-app"]);
  });
});
