import { Log } from "pepr";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { Repository, RepositoryKind } from "../../crd-types";
import { SecretKind } from "../../lib/cluster/kinds";
import { cluster } from "./cluster";
import { ContentStore, GitCredentials, openContentStore, RepositoryConfig } from "../../lib/git";

/**
 * Seed 002's shared cache: one content store per Repository object, shared by the Repository
 * and PackageRevision capabilities in the controller process. A store is rebuilt when the
 * Repository's git settings or its credentials change.
 */
const stores = new Map<string, { config: RepositoryConfig; store: ContentStore }>();

const cacheRoot = process.env.PORCH_PEPR_GIT_CACHE ?? join(tmpdir(), "porch-pepr-git");

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
async function credentialsOf(repo: Repository): Promise<GitCredentials | undefined> {
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

export async function repositoryConfig(repo: Repository): Promise<RepositoryConfig> {
  const git = repo.spec?.git;
  return {
    url: git?.repo ?? "",
    branch: git?.branch || "main",
    directory: git?.directory ?? "",
    createBranch: git?.createBranch ?? false,
    credentials: await credentialsOf(repo),
    author: { name: git?.author, email: git?.email },
  };
}

/**
 * A one-off store for a raw git URL (PackageRevision spec.source.cloneFrom.git), with the
 * credentials its secretRef names in `namespace`. The caller closes it.
 */
export async function rawStore(
  namespace: string,
  git: { repo: string; secretRef?: { name: string } },
): Promise<ContentStore> {
  const config = await repositoryConfig({ metadata: { namespace }, spec: { git } } as Repository);
  return openContentStore(config, { cacheRoot: join(cacheRoot, "raw"), log: storeLog });
}

/**
 * The store of a Repository, (re)built when its settings or credentials changed. Never for a
 * Repository being deleted: admission lets a terminating object's spec through unchecked only
 * while it is unchanged, but its credentials are not read for it in any case.
 */
export async function storeFor(repo: Repository): Promise<ContentStore> {
  if (repo.metadata?.deletionTimestamp)
    throw new Error(`Repository "${repo.metadata.name}" is being deleted: git is not used for it`);
  const key = repositoryKey(repo.metadata?.namespace ?? "", repo.metadata?.name ?? "");
  const config = await repositoryConfig(repo);
  const existing = stores.get(key);
  if (existing && isDeepStrictEqual(existing.config, config)) return existing.store;
  existing?.store.close();
  const store = openContentStore(config, {
    cacheRoot: join(cacheRoot, key.replace("/", "_")),
    readFreshnessMs: READ_FRESHNESS_MS,
    log: storeLog,
  });
  stores.set(key, { config, store });
  return store;
}

/**
 * The store of the Repository `name` in `namespace`; undefined when it does not exist or is
 * being deleted (its revisions leave git alone then).
 */
export async function storeForName(
  namespace: string,
  name: string,
): Promise<{ repo: Repository; store: ContentStore } | undefined> {
  // Only "not found" means gone: deletion gating treats a missing Repository as a GC cascade.
  const repo = await cluster.get(RepositoryKind, { namespace, name });
  if (!repo || repo.metadata?.deletionTimestamp) return undefined;
  return { repo, store: await storeFor(repo) };
}

export function forgetStore(namespace: string, name: string): void {
  const key = repositoryKey(namespace, name);
  stores.get(key)?.store.close();
  stores.delete(key);
}

const storeLog = {
  debug: (msg: string, fields?: Record<string, unknown>) => Log.debug(fields ?? {}, msg),
  warn: (msg: string, fields?: Record<string, unknown>) => Log.warn(fields ?? {}, msg),
};
