import { reconcilePackageVariantSet } from "../../../capabilities/package-variant-set/reconcile";
import { PackageVariantKind, RepositoryKind } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { NS, repositoryObject, seed } from "./fixtures";
import { setScene } from "./scenes";

// A set reconciles at every change of its variants (a thousand times in a fan-out); its
// templates read the namespace's Repositories from the watch's cache, not from a LIST each time.
describe("a PackageVariantSet's Repositories", () => {
  let h: TestOperator;
  const reconcile = () => reconcilePackageVariantSet(`${NS}/set`, h.ctx);
  const repositoryLists = (calls: string[]) => calls.filter(c => c.startsWith("list Repository"));

  beforeEach(async () => {
    h = await testOperator();
    await setScene(h, {
      targets: [{ repositories: [{ name: "edge" }, { name: "core" }] }],
    });
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
