// A tenant of the noisy-neighbour scenario: a namespace with one Repository of its own on the
// environment's git server, and a watch of its PackageRevisions.
import { join } from "node:path";
import { ObjectCache } from "../../bench/cache";
import { conditionOf, deleteNamespace, paths, type KubeObject } from "../../bench/kube";
import { openContentStore } from "../../lib/git";
import type { FaultContext } from "../context";

export interface Tenant {
  ns: string;
  repo: string;
  revisions: ObjectCache;
  stop(): void;
}

/** How long a new Repository may take to be Ready. */
const REPOSITORY_READY_MS = 120_000;

/** A Repository object in `ns` named `name` for `url`'s main branch. */
export const repositoryObject = (name: string, url: string) => ({
  apiVersion: "config.porch.kpt.dev/v1alpha1",
  kind: "Repository",
  metadata: { name },
  spec: { deployment: false, git: { repo: url, branch: "main" } },
});

/** A Draft PackageRevision of `pkg` in `tenant`'s repository, made by `source`. */
export function draft(tenant: Pick<Tenant, "repo">, pkg: string, source: unknown): KubeObject {
  return {
    apiVersion: "porch.kpt.dev/v1alpha2",
    kind: "PackageRevision",
    metadata: { name: `${tenant.repo}.${pkg}.v1` },
    spec: {
      packageName: pkg,
      repository: tenant.repo,
      workspaceName: "v1",
      lifecycle: "Draft",
      source,
    },
  };
}

export const isReady = (obj: KubeObject | undefined) =>
  conditionOf(obj, "Ready")?.status === "True";

/** Namespace `ns` with Repository `repo` (a new repository on the environment's git server), Ready. */
export async function createTenant(ctx: FaultContext, ns: string, repo: string): Promise<Tenant> {
  await ctx.api.create(paths.namespaces, { metadata: { name: ns } });
  const { url } = await ctx.env.git.createBareRepo(`${ns}-${repo}`);
  // main with porch's initial commit, as a new repository has it
  const store = openContentStore(
    { url, createBranch: true },
    { cacheRoot: join(ctx.workDir, "tenant-writer") },
  );
  await store.open().finally(() => store.close());
  const repositories = await new ObjectCache(ctx.api, paths.repo(ns)).start();
  const revisions = await new ObjectCache(ctx.api, paths.pr(ns)).start();
  try {
    await ctx.api.create(paths.repo(ns), repositoryObject(repo, url));
    await repositories.until(
      `Repository ${ns}/${repo} Ready`,
      () => (isReady(repositories.items.get(repo)) ? true : undefined),
      REPOSITORY_READY_MS,
    );
  } catch (error) {
    revisions.stop();
    throw error;
  } finally {
    repositories.stop();
  }
  return { ns, repo, revisions, stop: () => revisions.stop() };
}

/** Deletes `ns`, waiting at most a minute (a wedged operator may hold its finalizers). */
export async function removeTenant(ctx: FaultContext, ns: string): Promise<void> {
  await deleteNamespace(ctx.api, ns, 60_000).catch((error: unknown) =>
    ctx.log(
      `namespace ${ns} left behind: ${error instanceof Error ? error.message : String(error)}`,
    ),
  );
}
