import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { Repository, RepositoryKind } from "../../crd-types";
import { SecretKind } from "../../lib/cluster/kinds";
import type { Cluster } from "../../lib/cluster/port";
import { ContentStore, GitCredentials, openContentStore, RepositoryConfig } from "../../lib/git";
import { removeCache } from "../../lib/git/cache-disk";
import { lingerMsFromEnv } from "../../lib/git/push-batch";

const defaultCacheRoot = () => process.env.PORCH_PEPR_GIT_CACHE ?? join(tmpdir(), "porch-pepr-git");

/**
 * Refs fetched this recently are trusted, so a burst of reconciles on one repository shares a
 * fetch instead of each paying one (a fetch is most of a draft's cost, measured by npm run
 * bench). Commits pushed from elsewhere are seen within this time; a Repository sync always
 * fetches, and every push is leased, so a stale view never loses a commit.
 */
const READ_FRESHNESS_MS = 5_000;

export class CredentialsError extends Error {}

const decode = (value?: string) =>
  value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");

/** Credentials from `spec.git.secretRef`: basic-auth username/password, or a bearer token. */
async function credentialsOf(
  cluster: Cluster,
  repo: Repository,
): Promise<GitCredentials | undefined> {
  const name = repo.spec?.git?.secretRef?.name;
  if (!name) return undefined;
  const secret = await cluster
    .get(SecretKind, { namespace: repo.metadata?.namespace, name })
    .catch(() => undefined);
  if (!secret)
    throw new CredentialsError(`cannot read Secret "${name}" named by spec.git.secretRef`);
  const data = secret.data ?? {};
  const token = decode(data.bearerToken);
  if (token) return { type: "bearer", token };
  const username = decode(data.username);
  const password = decode(data.password);
  if (username !== undefined && password !== undefined)
    return { type: "basic", username, password };
  throw new CredentialsError(
    `Secret "${name}" must hold username and password (type kubernetes.io/basic-auth) or bearerToken`,
  );
}

export const repositoryKey = (namespace: string, name: string) => `${namespace}/${name}`;

async function repositoryConfig(cluster: Cluster, repo: Repository): Promise<RepositoryConfig> {
  const git = repo.spec?.git;
  return {
    url: git?.repo ?? "",
    branch: git?.branch || "main",
    directory: git?.directory ?? "",
    createBranch: git?.createBranch ?? false,
    credentials: await credentialsOf(cluster, repo),
    author: { name: git?.author, email: git?.email },
  };
}

export interface StoreLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/**
 * The shared cache: one content store per Repository object, shared by the Repository and
 * PackageRevision controllers. A store is rebuilt when the Repository's git settings or its
 * credentials change.
 */
export class ContentStores {
  readonly #stores = new Map<string, { config: RepositoryConfig; store: ContentStore }>();
  readonly #lingerMs: number;
  /**
   * Whether more writers of a Repository are on their way (the PackageRevision controller's
   * answer): while they are, its push batch waits for them, at most #lingerMs (push-batch.ts).
   */
  writersComing: ((namespace: string, name: string) => boolean) | undefined;
  /**
   * Whether another namespace has PackageRevision work queued or running (the controller's
   * answer): then a new draft or a lifecycle move waits for its push in its worker (writers.ts).
   */
  othersActive: ((namespace: string) => boolean) | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly log: StoreLog,
    private readonly cacheRoot = defaultCacheRoot(),
  ) {
    const linger = lingerMsFromEnv(process.env);
    if (linger.warning) log.warn(linger.warning);
    this.#lingerMs = linger.value;
  }

  /**
   * A one-off store for a raw git URL (PackageRevision spec.source.cloneFrom.git), with the
   * credentials its secretRef names in `namespace`. The caller closes it.
   */
  async raw(
    namespace: string,
    git: { repo: string; secretRef?: { name: string } },
  ): Promise<ContentStore> {
    const repo = { metadata: { namespace }, spec: { git } } as Repository;
    const config = await repositoryConfig(this.cluster, repo);
    // One cache per namespace and identity: a commit id named as the ref is read from whatever
    // the cache holds, so a cache shared by URL alone would let one tenant read objects another
    // tenant's credentials fetched. Hashed: the names are the tenant's.
    const identity = createHash("sha256")
      .update(JSON.stringify([namespace, git.secretRef?.name ?? null]))
      .digest("hex")
      .slice(0, 16);
    return openContentStore(config, {
      cacheRoot: join(this.cacheRoot, "raw", identity),
      log: this.log,
      namespace,
    });
  }

  /**
   * The store of a Repository, (re)built when its settings or credentials changed. Never for
   * a Repository being deleted: its credentials are not read for it in any case.
   */
  async of(repo: Repository): Promise<ContentStore> {
    if (repo.metadata?.deletionTimestamp)
      throw new Error(
        `Repository "${repo.metadata.name}" is being deleted: git is not used for it`,
      );
    const key = repositoryKey(repo.metadata?.namespace ?? "", repo.metadata?.name ?? "");
    const config = await repositoryConfig(this.cluster, repo);
    const existing = this.#stores.get(key);
    if (existing && isDeepStrictEqual(existing.config, config)) return existing.store;
    existing?.store.close();
    const store = openContentStore(config, {
      cacheRoot: join(this.cacheRoot, key.replace("/", "_")),
      readFreshnessMs: READ_FRESHNESS_MS,
      log: this.log,
      namespace: repo.metadata?.namespace ?? "",
      pushLinger: {
        maxMs: this.#lingerMs,
        coming: () =>
          this.writersComing?.(repo.metadata?.namespace ?? "", repo.metadata?.name ?? "") ?? false,
      },
    });
    this.#stores.set(key, { config, store });
    // A cache of the URL the Repository no longer names would stay on disk for good.
    if (existing && existing.store.cacheDir !== store.cacheDir)
      await removeCache(existing.store.cacheDir).catch((err: Error) =>
        this.log.warn("cannot delete the git cache of a URL a Repository no longer names", {
          key,
          error: err.message,
        }),
      );
    return store;
  }

  /**
   * The store of the Repository `name` in `namespace`; undefined when it does not exist or is
   * being deleted (its revisions leave git alone then).
   */
  async named(
    namespace: string,
    name: string,
  ): Promise<{ repo: Repository; store: ContentStore } | undefined> {
    // Only "not found" means gone: deletion gating treats a missing Repository as a GC cascade.
    const repo = await this.cluster.get(RepositoryKind, { namespace, name });
    if (!repo || repo.metadata?.deletionTimestamp) return undefined;
    return { repo, store: await this.of(repo) };
  }

  /**
   * Closes a deleted Repository's store and deletes its cache from disk (once no operation holds
   * it). Only a store this process opened is known: a cache left by an earlier process is
   * counted and evicted by the disk bound (lib/git/cache-disk.ts).
   */
  async forget(namespace: string, name: string): Promise<void> {
    const key = repositoryKey(namespace, name);
    const existing = this.#stores.get(key);
    this.#stores.delete(key);
    if (existing === undefined) return;
    existing.store.close();
    await removeCache(existing.store.cacheDir).catch((err: Error) =>
      this.log.warn("cannot delete a deleted Repository's git cache", {
        key,
        error: err.message,
      }),
    );
  }
}
