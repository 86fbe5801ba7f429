// Scenes of the PackageVariant and PackageVariantSet reconcilers' tests: the upstream, the
// Repositories and the variant or set each starts from, and the watches' deliveries between
// reconciles. Each test adds what it is about.
import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { reconcilePackageVariant } from "../../../capabilities/package-variant/reconcile";
import {
  PackageRevision,
  PackageRevisionKind,
  PackageRevisionResourcesKind,
  PackageVariant,
  PackageVariantKind,
  type PackageVariantSet,
  type PackageVariantSetSpec,
  type PackageVariantSpec,
  Repository,
  RepositoryKind,
  type RepositorySpec,
} from "../../../crd-types";
import { PACKAGE_VARIANT_FINALIZER } from "../../../lib/package-variant/ownership";
import { packageRevisionObjectName } from "../../../lib/packages/naming";
import type { TestOperator } from "../../support/operator-context";
import {
  configMap,
  labellingKptfile,
  NS,
  publishedRevision,
  repositoryObject,
  seed,
  seedLocalRepository,
  seedSet,
  seedWatchedRevision,
} from "./fixtures";

/**
 * The scene of a set's reconcile: package "app" published in Repository "blueprints" as the watch
 * delivered it, Repository "edge" (its git is not read), and set "set" of app revision 1 with
 * `spec`.
 */
export async function setScene(
  h: TestOperator,
  spec: Omit<PackageVariantSetSpec, "upstream">,
): Promise<PackageVariantSet> {
  await seedWatchedRevision(h, publishedRevision("blueprints", "app"));
  await seed(h.cluster, RepositoryKind, repositoryObject("edge", "https://git.example.com/e.git"));
  return seedSet(h, { upstream: { repo: "blueprints", package: "app", revision: 1 }, ...spec });
}

/** The files of upstream package "base": a ConfigMap and a labelling pipeline. */
export const baseFiles = { Kptfile: labellingKptfile("base"), "cm.yaml": configMap("a") };

/**
 * Package "base" published as revision 1 of Repository "blueprints" (a local bare repository):
 * `files` in git, and its PackageRevision in the cluster.
 */
async function publishedBase(
  h: TestOperator,
  files: Record<string, string> = baseFiles,
): Promise<PackageRevision> {
  const store = await h.ctx.stores.of(await seedLocalRepository(h, "blueprints"));
  await store.open();
  const key = { packageName: "base", workspaceName: "v1" };
  const draft = await store.createNewDraft(key);
  await draft.updateResources(files, "init");
  await draft.closeDraft();
  await store.updateLifecycle(key, "Proposed");
  await store.updateLifecycle(key, "Published");
  return seed(h.cluster, PackageRevisionKind, publishedRevision("blueprints", "base"));
}

export interface VariantSceneOptions {
  /** The upstream's files (default baseFiles). */
  upstreamFiles?: Record<string, string>;
  /** Added to the spec of Repository "deployments". */
  deployments?: Partial<RepositorySpec>;
  /** Added to the variant's spec. */
  variant?: Partial<PackageVariantSpec>;
}

/**
 * The scene of a PackageVariant's first reconcile: package "base" published in Repository
 * "blueprints", Repository "deployments", and PackageVariant "pv" of base revision 1 into
 * deployments/app, with its finalizer as a PackageVariantSet creates it; the watch has primed the
 * namespace's revisions.
 */
export async function variantScene(
  h: TestOperator,
  { upstreamFiles = baseFiles, deployments = {}, variant = {} }: VariantSceneOptions = {},
): Promise<{ pv: PackageVariant; deployments: Repository }> {
  await publishedBase(h, upstreamFiles);
  const repository = await seedLocalRepository(h, "deployments", deployments);
  const pv = await seed(h.cluster, PackageVariantKind, {
    metadata: { name: "pv", namespace: NS, finalizers: [PACKAGE_VARIANT_FINALIZER] },
    spec: {
      upstream: { repo: "blueprints", package: "base", revision: "1" },
      downstream: { repo: "deployments", package: "app" },
      ...variant,
    },
  } as PackageVariant);
  await h.ctx.caches.revisions.ofPackage(NS);
  return { pv, deployments: repository };
}

/** Every object of the watched kinds, into its cache, as the watches deliver them. */
export async function deliverWatched(h: TestOperator): Promise<void> {
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

/** The name of the first draft variant "pv" of the scene makes. */
export const variantDraftName = packageRevisionObjectName("deployments", "app", "packagevariant-1");

/** The calls of `calls` that change something: neither reads nor watches. */
export const writesOf = (calls: string[]) =>
  calls.filter(c => !/^(get|list|watch|resources) /.test(c));

/**
 * Variant "pv" and its draft reconciled in turn, as their events would run them, each after the
 * watches delivered, until a turn writes nothing (at most six turns; a new variant settles in
 * three).
 */
export async function settleVariant(h: TestOperator): Promise<void> {
  const draft = { namespace: NS, name: variantDraftName };
  for (let turn = 0; turn < 6; turn++) {
    const calls = h.callsFrom();
    await deliverWatched(h);
    await reconcilePackageVariant(`${NS}/pv`, h.ctx);
    await deliverWatched(h);
    if (await h.cluster.get(PackageRevisionKind, draft))
      await reconcilePackageRevision(`${NS}/${variantDraftName}`, h.ctx);
    if (writesOf(calls()).length === 0) break;
  }
  await deliverWatched(h);
}
