import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import {
  PackageRevision,
  PackageRevisionKind,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
  PackageVariantSet,
  PackageVariantSetKind,
  type PackageVariantSetSpec,
  Repository,
  RepositoryKind,
  type RepositorySpec,
} from "../../../crd-types";
import type { KubeObject, ResourceKind } from "../../../lib/cluster/port";
import { refOf } from "../../../lib/cluster/port";
import type { ContentStore } from "../../../lib/git";
import { packageRevisionObjectName } from "../../../lib/packages/naming";
import type { MemoryCluster } from "../../support/memory-cluster";
import type { TestOperator } from "../../support/operator-context";

export const NS = "ns";

/** Creates `obj` and then, as a controller would, writes its status through /status. */
export async function seed<T extends KubeObject & { status?: unknown }>(
  cluster: MemoryCluster,
  kind: ResourceKind<T>,
  obj: T,
): Promise<T> {
  const created = await cluster.create(kind, obj);
  if (obj.status === undefined) return created as T;
  return cluster.patch(kind, refOf(obj), { merge: { status: obj.status } }, { status: true });
}

export const repositoryObject = (
  name: string,
  url: string,
  spec: Partial<RepositorySpec> = {},
): Repository => ({
  metadata: { name, namespace: NS },
  spec: {
    type: "git",
    ...spec,
    git: { repo: url, branch: "main", createBranch: true, ...spec.git },
  },
});

/** A Repository `name` on a new local bare repository (branch main), in the cluster. */
export async function seedLocalRepository(
  h: TestOperator,
  name: string,
  spec: Partial<RepositorySpec> = {},
): Promise<Repository> {
  return seed(
    h.cluster,
    RepositoryKind,
    repositoryObject(name, await h.localRepository(name), spec),
  );
}

export const kptfile = (name: string, pipeline = "") =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n  annotations:\n    config.kubernetes.io/local-config: "true"\n${pipeline}`;

/** A Kptfile whose pipeline labels every resource `env: dev` (the set-labels built-in). */
export const labellingKptfile = (name: string) =>
  kptfile(
    name,
    "pipeline:\n  mutators:\n    - image: set-labels:v0.2\n      configMap:\n        env: dev\n",
  );

export const configMap = (name: string, value = "1") =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: "${value}"\n`;

export interface Draft {
  pr: PackageRevision;
  store: ContentStore;
  key: { packageName: string; workspaceName: string };
}

/**
 * A Draft as the operator leaves one before it is rendered: a Repository on a local bare
 * repository, the draft branch in git holding `files`, and the PackageRevision and its
 * PackageRevisionResources (the same files, not rendered yet).
 */
export async function draftRevision(
  h: TestOperator,
  files: Record<string, string>,
  { repo = "repo", packageName = "app", workspaceName = "v1" } = {},
): Promise<Draft> {
  const store = await h.ctx.stores.of(await seedLocalRepository(h, repo));
  await store.open();
  const key = { packageName, workspaceName };
  const draft = await store.createNewDraft(key);
  await draft.updateResources(files, "init");
  await draft.closeDraft();

  const name = packageRevisionObjectName(repo, packageName, workspaceName);
  const spec = { repository: repo, packageName, workspaceName };
  await h.cluster.create(PackageRevisionKind, {
    metadata: { name, namespace: NS },
    spec: { ...spec, lifecycle: "Draft" },
  } as PackageRevision);
  await h.cluster.create(PackageRevisionResourcesKind, {
    metadata: { name, namespace: NS },
    spec: { ...spec, resources: files },
  } as PackageRevisionResources);
  const pr = await h.cluster.get(PackageRevisionKind, { namespace: NS, name });
  if (!pr) throw new Error(`${name} was not created`);
  return { pr, store, key };
}

/**
 * A Draft of package "app" holding a ConfigMap and a labelling pipeline, rendered by one
 * reconcile, with the key its controller queues it under.
 */
export async function renderedDraft(h: TestOperator): Promise<Draft & { queueKey: string }> {
  const files = { Kptfile: labellingKptfile("app"), "configmap.yaml": configMap("app") };
  const d = await draftRevision(h, files);
  const queueKey = `${NS}/${d.pr.metadata?.name}`;
  await reconcilePackageRevision(queueKey, h.ctx);
  return { ...d, queueKey };
}

/** Revision 1 (workspace v1) of `packageName` in Repository `repo`, Published. */
export const publishedRevision = (repo: string, packageName: string): PackageRevision => ({
  metadata: { name: packageRevisionObjectName(repo, packageName, "v1"), namespace: NS },
  spec: { repository: repo, packageName, workspaceName: "v1", lifecycle: "Published" },
  status: { revision: 1 },
});

/** Published revision 1 of package "basens" in repository "blueprints": a variant's upstream. */
export const basensUpstream = { repo: "blueprints", package: "basens", revision: "1" };
export const publishedBasens = publishedRevision("blueprints", "basens");

/** Creates the PackageRevision `pr`, and the watch delivers it to the revisions' cache. */
export async function seedWatchedRevision(h: TestOperator, pr: PackageRevision): Promise<void> {
  h.ctx.caches.revisions.cache.upsert(await seed(h.cluster, PackageRevisionKind, pr));
}

/** PackageVariantSet "set" with `spec`, as its user creates it. */
export const seedSet = (h: TestOperator, spec: PackageVariantSetSpec) =>
  seed(h.cluster, PackageVariantSetKind, {
    metadata: { name: "set", namespace: NS },
    spec,
  } as PackageVariantSet);

/** An object's conditions by type. */
export const conditionsOf = (obj: { status?: { conditions?: { type: string }[] } }) =>
  Object.fromEntries((obj.status?.conditions ?? []).map(c => [c.type, c]));

/** The object as the cluster holds it now (fails the test when it is gone). */
export async function current<T extends KubeObject>(
  cluster: MemoryCluster,
  kind: ResourceKind<T>,
  obj: KubeObject,
): Promise<T> {
  const found = await cluster.get(kind, refOf(obj));
  if (!found) throw new Error(`${kind.kind} ${obj.metadata?.name} not found`);
  return found;
}

/**
 * A Draft of package "app" (workspace v1) cloned from an upstream draft of package "base"
 * holding `upstreamFiles`, as the user creates it: its source has not run yet.
 */
export async function cloneOfUpstream(
  h: TestOperator,
  upstreamFiles: Record<string, string>,
): Promise<PackageRevision> {
  const upstream = await draftRevision(h, upstreamFiles, {
    packageName: "base",
    workspaceName: "v1",
  });
  const name = packageRevisionObjectName("repo", "app", "v1");
  const created = await h.cluster.create(PackageRevisionKind, {
    metadata: { name, namespace: NS },
    spec: {
      repository: "repo",
      packageName: "app",
      workspaceName: "v1",
      lifecycle: "Draft",
      source: { cloneFrom: { upstreamRef: { name: upstream.pr.metadata?.name ?? "" } } },
    },
  } as PackageRevision);
  if (!created) throw new Error(`${name} was not created`);
  return created;
}

/**
 * Another revision of repository "repo" whose source is still to run, as the watch cached it:
 * a writer on its way to the repository (capabilities/package-revision/writers.ts).
 */
export async function draftOnItsWay(h: TestOperator): Promise<PackageRevision> {
  const other = await h.cluster.create(PackageRevisionKind, {
    metadata: { name: "repo.other.v1", namespace: NS },
    spec: {
      repository: "repo",
      packageName: "other",
      workspaceName: "v1",
      lifecycle: "Draft",
      source: { init: {} },
    },
  } as PackageRevision);
  if (!other) throw new Error("repo.other.v1 was not created");
  h.ctx.caches.revisions.cache.upsert(other);
  return other;
}
