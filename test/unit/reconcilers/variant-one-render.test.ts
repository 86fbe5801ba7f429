import { execFileSync } from "node:child_process";
import { metricsCollector } from "pepr";
import { fileURLToPath } from "node:url";
import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { reconcilePackageVariant } from "../../../capabilities/package-variant/reconcile";
import {
  PackageRevision,
  PackageRevisionKind,
  PackageRevisionResourcesKind,
  PackageVariant,
  PackageVariantKind,
  RepositoryKind,
} from "../../../crd-types";
import { ConfigMapKind } from "../../../lib/cluster/kinds";
import { PACKAGE_VARIANT_FINALIZER } from "../../../lib/package-variant/ownership";
import { SOURCE_MUTATIONS_ANNOTATION } from "../../../lib/package-variant";
import { packageRevisionObjectName } from "../../../lib/packages/naming";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, labellingKptfile, NS, repositoryObject, seed } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const endpoints = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endpoints\n  annotations:\n    kpt.dev/config-injection: required\n    config.kubernetes.io/local-config: "true"\ndata:\n  db: unset\n`;

/**
 * A variant with a package context key, a prepended mutator and an injected ConfigMap (what
 * Nephio users run): its draft's source applies the mutations before its render, so the draft
 * is rendered once and committed once, and the variant's check finds nothing to write.
 */
describe("a PackageVariant's new draft with mutations", () => {
  let h: TestOperator;
  let deploymentsUrl: string;

  beforeEach(async () => {
    h = await testOperator();
    h.cluster.serve(ConfigMapKind, { statusSubresource: false });
  });
  afterEach(() => h.close());

  /** pepr_package_renders_total, as the module serves it on /metrics. */
  async function renders(): Promise<number> {
    const line = (await metricsCollector.getMetrics())
      .split("\n")
      .find(l => l.startsWith("pepr_package_renders_total "));
    return Number(line?.split(" ")[1]);
  }

  async function publishedUpstream(): Promise<void> {
    const repository = await seed(
      h.cluster,
      RepositoryKind,
      repositoryObject("blueprints", await h.localRepository("blueprints")),
    );
    const store = await h.ctx.stores.of(repository);
    await store.open();
    const key = { packageName: "base", workspaceName: "v1" };
    const draft = await store.createNewDraft(key);
    const files = {
      Kptfile: labellingKptfile("base"),
      "cm.yaml": configMap("a"),
      "endpoints.yaml": endpoints,
    };
    await draft.updateResources(files, "init");
    await draft.closeDraft();
    await store.updateLifecycle(key, "Proposed");
    await store.updateLifecycle(key, "Published");
    await seed(h.cluster, PackageRevisionKind, {
      metadata: { name: packageRevisionObjectName("blueprints", "base", "v1"), namespace: NS },
      spec: { repository: "blueprints", ...key, lifecycle: "Published" },
      status: { revision: 1 },
    } as PackageRevision);
  }

  /** Every object of the watched kinds, into its cache, as the watches deliver them. */
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

  /** The subjects of the commits `branch` adds to main in the deployments repository. */
  function commitsOf(branch: string): string[] {
    const gitDir = fileURLToPath(deploymentsUrl);
    const log = execFileSync(
      "git",
      ["--git-dir", gitDir, "log", "--format=%s", `main..${branch}`],
      {
        encoding: "utf8",
      },
    );
    return log.split("\n").filter(Boolean);
  }

  it("renders and commits it once; the variant's check writes nothing", async () => {
    await publishedUpstream();
    deploymentsUrl = await h.localRepository("deployments");
    await seed(
      h.cluster,
      RepositoryKind,
      repositoryObject("deployments", deploymentsUrl, { deployment: true }),
    );
    await seed(h.cluster, ConfigMapKind, {
      metadata: { name: "eu-endpoints", namespace: NS },
      data: { db: "db.eu.example" },
    });
    await seed(h.cluster, PackageVariantKind, {
      metadata: { name: "pv", namespace: NS, finalizers: [PACKAGE_VARIANT_FINALIZER] },
      spec: {
        upstream: { repo: "blueprints", package: "base", revision: "1" },
        downstream: { repo: "deployments", package: "app" },
        packageContext: { data: { region: "eu" } },
        pipeline: {
          mutators: [{ name: "ns", image: "set-namespace:v0.4", configMap: { namespace: "eu" } }],
        },
        injectors: [{ kind: "ConfigMap", name: "eu-endpoints" }],
      },
    } as PackageVariant);
    await h.ctx.caches.revisions.ofPackage(NS);

    const draftName = packageRevisionObjectName("deployments", "app", "packagevariant-1");
    const calls = h.callsFrom();
    const rendersBefore = await renders();
    for (let turn = 0; turn < 6; turn++) {
      await deliver();
      await reconcilePackageVariant(`${NS}/pv`, h.ctx);
      await deliver();
      if (await h.cluster.get(PackageRevisionKind, { namespace: NS, name: draftName }))
        await reconcilePackageRevision(`${NS}/${draftName}`, h.ctx);
    }

    const pv = await current(h.cluster, PackageVariantKind, {
      metadata: { name: "pv", namespace: NS },
    });
    expect(pv.status?.conditions?.find(c => c.type === "Ready")).toMatchObject({
      status: "True",
    });
    const draft = await current(h.cluster, PackageRevisionKind, {
      metadata: { name: draftName, namespace: NS },
    });
    expect(draft.metadata?.annotations?.[SOURCE_MUTATIONS_ANNOTATION]).toBe(pv.metadata?.uid);
    const prr = await current(h.cluster, PackageRevisionResourcesKind, draft);
    const files = prr.spec?.resources ?? {};
    expect(files["package-context.yaml"]).toContain("region: eu");
    expect(files["endpoints.yaml"]).toContain("db: db.eu.example");
    expect(files["cm.yaml"]).toContain("namespace: eu");
    expect(files["cm.yaml"]).toContain("env: dev");

    // One render, one commit on the draft branch.
    expect((await renders()) - rendersBefore).toBe(1);
    expect(commitsOf("drafts/app/packagevariant-1")).toEqual([`clone ${draftName}`]);
    // The variant's check found the files as it wants them: it wrote none.
    const fileWrites = calls().filter(
      c => c === `apply PackageRevisionResources ${NS}/${draftName}`,
    );
    expect(fileWrites).toHaveLength(1);
  });
});
