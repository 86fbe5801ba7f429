// The fleet every scenario works on: a blueprint repository with the demo's base-ns package
// (a real Kptfile pipeline: set-namespace from the package context) and an unrelated package,
// deployment repositories (ten, and one per 100 variants beyond 1,000), all registered as
// Repository objects in one namespace.
import { join } from "node:path";
import { DEMO_BLUEPRINTS, type DemoPackage } from "../../hack/demo/packages";
import { publishPackages } from "../../hack/demo/repositories";
import { mapLimit } from "../../lib/controller/concurrency";
import { openContentStore } from "../../lib/git";
import { ObjectCache } from "../cache";
import { conditionOf, paths, type KubeObject } from "../kube";
import type { BenchContext } from "./context";

/** Packages per deployment repository the fleet grows to before it adds repositories. */
export const PACKAGES_PER_REPOSITORY = 100;

/**
 * Ten deployment repositories up to 1,000 variants, then one per 100 (N = 10,000: 100 of 100):
 * a repository's size, which every fetch and push of it pays for, stays the N = 1000 one, so
 * time per variant at 10,000 compares with 1,000 on what the operator does, not on git.
 */
export const deploymentRepositories = (n: number): number =>
  Math.max(10, Math.ceil(n / PACKAGES_PER_REPOSITORY));
export const BLUEPRINTS = "blueprints";
export const UPSTREAM_PACKAGE = "base-ns";
/** A published package no PackageVariant uses: the "unrelated PackageRevision" of the events. */
export const UNRELATED_PACKAGE = "app";

export interface Fleet {
  ns: string;
  n: number;
  repos: string[];
  /** Package names per deployment repository (N / repositories of them). */
  packageNames: string[];
  blueprintsUrl: string;
  repositories: ObjectCache;
  variants: ObjectCache;
  revisions: ObjectCache;
  resources: ObjectCache;
  stop(): void;
}

const demo = (name: string): DemoPackage => {
  const pkg = DEMO_BLUEPRINTS.find(p => p.name === name);
  if (!pkg) throw new Error(`demo package ${name} is missing`);
  return pkg;
};

/** base-ns with its revisions up to v`upTo` (the demo has v1 and v2). */
export const upstreamPackage = (upTo: number): DemoPackage => ({
  ...demo(UPSTREAM_PACKAGE),
  revisions: demo(UPSTREAM_PACKAGE).revisions.slice(0, upTo),
});

/** Publishes packages into the blueprint repository from outside the operator. */
export async function publishBlueprints(
  ctx: BenchContext,
  url: string,
  packages: DemoPackage[],
): Promise<void> {
  const store = openContentStore(
    { url, createBranch: true },
    { cacheRoot: join(ctx.workDir, "blueprints-writer") },
  );
  try {
    await publishPackages(store, packages);
  } finally {
    store.close();
  }
}

/**
 * A deployment repository syncs only when the bench asks (syncDeployments): its schedule's next
 * run is New Year, so the periodic sync's work is counted in the "sync" phase and never falls
 * into another phase at a moment that depends on how long the earlier ones took.
 */
const BENCH_SYNC_SCHEDULE = "0 0 1 1 *";

const repository = (name: string, url: string, deployment: boolean, labels = {}) => ({
  apiVersion: "config.porch.kpt.dev/v1alpha1",
  kind: "Repository",
  metadata: { name, labels },
  spec: {
    deployment,
    git: { repo: url, branch: "main" },
    ...(deployment && { sync: { schedule: BENCH_SYNC_SCHEDULE } }),
  },
});

/** `upstream`: the blueprint base-ns is published as (v1 first; the upgrade publishes v2). */
export async function createFleet(
  ctx: BenchContext,
  n: number,
  ns = "bench",
  upstream = upstreamPackage(1),
): Promise<Fleet> {
  const { api, env } = ctx;
  await api.create(paths.namespaces, { metadata: { name: ns } });
  const blueprintsUrl = (await env.git.createBareRepo(BLUEPRINTS)).url;
  await publishBlueprints(ctx, blueprintsUrl, [upstream, demo(UNRELATED_PACKAGE)]);
  const count = deploymentRepositories(n);
  const repos = Array.from({ length: count }, (_, i) => `deploy-${i}`);
  const urls = await mapLimit(repos, 8, async name => {
    const { url } = await env.git.createBareRepo(name);
    // main with porch's initial commit, as a new deployment repository has it
    const store = openContentStore(
      { url, createBranch: true },
      { cacheRoot: join(ctx.workDir, "deploy-writer") },
    );
    await store.open().finally(() => store.close());
    return url;
  });
  const caches = await Promise.all(
    [paths.repo(ns), paths.pv(ns), paths.pr(ns), paths.prr(ns)].map(p =>
      new ObjectCache(api, p).start(),
    ),
  );
  const [repositories, variants, revisions, resources] = caches;
  await api.create(paths.repo(ns), repository(BLUEPRINTS, blueprintsUrl, false));
  for (const [i, name] of repos.entries())
    await api.create(paths.repo(ns), repository(name, urls[i], true, { shard: String(i) }));
  await repositories.until(
    "repositories Ready",
    () =>
      repositories.values.every(r => conditionOf(r, "Ready")?.status === "True") ? true : undefined,
    120_000 + count * 2_000,
  );
  await revisions.until(
    "blueprint revisions mirrored",
    () =>
      revisions.items.has(`${BLUEPRINTS}.${UPSTREAM_PACKAGE}.v1`) &&
      revisions.items.has(`${BLUEPRINTS}.${UNRELATED_PACKAGE}.v1`)
        ? true
        : undefined,
    120_000,
  );
  const perRepo = Math.max(1, Math.round(n / count));
  const packageNames = Array.from(
    { length: perRepo },
    (_, i) => `ns-${String(i).padStart(4, "0")}`,
  );
  return {
    ns,
    n: perRepo * count,
    repos,
    packageNames,
    blueprintsUrl,
    repositories,
    variants,
    revisions,
    resources,
    stop: () => caches.forEach(c => c.stop()),
  };
}

/** Rendered as the e2e tests check it: Rendered=True for the PackageRevisionResources' current version. */
export function isRendered(fleet: Fleet, pr: KubeObject): boolean {
  const prr = fleet.resources.items.get(pr.metadata.name);
  return (
    conditionOf(pr, "Rendered")?.status === "True" &&
    prr !== undefined &&
    pr.status?.observedPrrResourceVersion === prr.metadata.resourceVersion
  );
}
