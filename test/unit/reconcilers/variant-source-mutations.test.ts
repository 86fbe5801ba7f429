import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { reconcilePackageVariant } from "../../../capabilities/package-variant/reconcile";
import {
  PackageRevision,
  PackageRevisionKind,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
  PackageVariant,
  PackageVariantKind,
  RepositoryKind,
} from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { PACKAGE_VARIANT_FINALIZER } from "../../../lib/package-variant/ownership";
import { packageRevisionObjectName } from "../../../lib/packages/naming";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, labellingKptfile, NS, repositoryObject, seed } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

/**
 * A variant's new draft carries its mutations from the source step, which says so to the
 * variant's check (capabilities/package-revision/variant-mutations.ts): the check does not read
 * the files it knows. It reads them, and mutates again, once a user edited them or the variant's
 * spec changed.
 */
describe("a draft mutated by its source", () => {
  let h: TestOperator;
  const draftName = packageRevisionObjectName("deployments", "app", "packagevariant-1");
  const draft = { metadata: { name: draftName, namespace: NS } };
  const prrReads = (calls: string[]) =>
    calls.filter(c => c === `get PackageRevisionResources ${NS}/${draftName}`);

  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  async function deliver(): Promise<void> {
    const { caches } = h.ctx;
    for (const pr of await h.cluster.list(PackageRevisionKind, { namespace: NS }))
      caches.revisions.cache.upsert(pr);
    for (const pv of await h.cluster.list(PackageVariantKind, { namespace: NS }))
      caches.variants.upsert(pv);
    for (const repo of await h.cluster.list(RepositoryKind, { namespace: NS }))
      caches.repositories.upsert(repo);
    for (const prr of await h.cluster.list(PackageRevisionResourcesKind, { namespace: NS }))
      caches.resources.upsert(prr);
  }

  /** The variant and its draft reconciled in turn, each after the watches delivered. */
  async function settle(): Promise<void> {
    for (let turn = 0; turn < 4; turn++) {
      await deliver();
      await reconcilePackageVariant(`${NS}/pv`, h.ctx);
      await deliver();
      if (await h.cluster.get(PackageRevisionKind, draft.metadata))
        await reconcilePackageRevision(`${NS}/${draftName}`, h.ctx);
    }
    await deliver();
  }

  const contextOf = async () =>
    (await current(h.cluster, PackageRevisionResourcesKind, draft)).spec?.resources?.[
      "package-context.yaml"
    ] ?? "";

  beforeEach(async () => {
    const repository = await seed(
      h.cluster,
      RepositoryKind,
      repositoryObject("blueprints", await h.localRepository("blueprints")),
    );
    const store = await h.ctx.stores.of(repository);
    await store.open();
    const key = { packageName: "base", workspaceName: "v1" };
    const upstream = await store.createNewDraft(key);
    await upstream.updateResources(
      { Kptfile: labellingKptfile("base"), "cm.yaml": configMap("a") },
      "init",
    );
    await upstream.closeDraft();
    await store.updateLifecycle(key, "Proposed");
    await store.updateLifecycle(key, "Published");
    await seed(h.cluster, PackageRevisionKind, {
      metadata: { name: packageRevisionObjectName("blueprints", "base", "v1"), namespace: NS },
      spec: { repository: "blueprints", ...key, lifecycle: "Published" },
      status: { revision: 1 },
    } as PackageRevision);
    await seed(
      h.cluster,
      RepositoryKind,
      repositoryObject("deployments", await h.localRepository("deployments"), { deployment: true }),
    );
    await seed(h.cluster, PackageVariantKind, {
      metadata: { name: "pv", namespace: NS, finalizers: [PACKAGE_VARIANT_FINALIZER] },
      spec: {
        upstream: { repo: "blueprints", package: "base", revision: "1" },
        downstream: { repo: "deployments", package: "app" },
        packageContext: { data: { region: "eu" } },
      },
    } as PackageVariant);
    await h.ctx.caches.revisions.ofPackage(NS);
  });

  it("is not read by the variant's check", async () => {
    const calls = h.callsFrom();
    await settle();
    const reads = prrReads(calls());
    expect(await contextOf()).toContain("region: eu");
    expect(reads).toEqual([]);
  });

  it("is read and mutated again after a user's edit of its files", async () => {
    await settle();
    const prr = await current(h.cluster, PackageRevisionResourcesKind, draft);
    const files = { ...prr.spec?.resources };
    files["package-context.yaml"] = files["package-context.yaml"].replace("region: eu", "");
    await h.cluster.apply(
      PackageRevisionResourcesKind,
      { metadata: draft.metadata, spec: { resources: files } } as PackageRevisionResources,
      "user",
    );
    const calls = h.callsFrom();
    await settle();
    expect(prrReads(calls())).not.toEqual([]);
    expect(await contextOf()).toContain("region: eu");
  });

  it("is read and mutated again when the variant's spec changed", async () => {
    await settle();
    const pv = await current(h.cluster, PackageVariantKind, {
      metadata: { name: "pv", namespace: NS },
    });
    await h.cluster.patch(PackageVariantKind, refOf(pv), {
      merge: { spec: { packageContext: { data: { region: "us" } } } },
    });
    const calls = h.callsFrom();
    await settle();
    expect(prrReads(calls())).not.toEqual([]);
    expect(await contextOf()).toContain("region: us");
  });
});
