// Creates the demo repositories on the local git server and returns the manifests that register
// them. The content is written through the git content store itself, so the repositories have
// exactly the layout the operator (and Porch) reads: published revision N = tag `<package>/v<N>`
// plus the package on `main`, with the store's `kpt:` commit annotations; drafts on `drafts/...`.
import { Document } from "yaml";
import type { RepositorySpec } from "../../crd-types";
import {
  openContentStore,
  type ContentStore,
  type GitClientKind,
  type Lifecycle,
  type PackageRevisionInfo,
  type RepositoryConfig,
} from "../../lib/git";
import { stringifyYamlFile } from "../../lib/krm/documents";
import type { GitServer } from "../git-server";
import { DEMO_BLUEPRINTS, type DemoPackage, type DemoRevision } from "./packages";

export const BLUEPRINTS_REPOSITORY = "blueprints";
export const DEPLOYMENTS_REPOSITORY = "deployments";
export const DEMO_SECRET_NAME = "demo-git-auth";
/** Labels of the deployment repository, for repositorySelector examples. */
export const DEPLOYMENTS_LABELS: Readonly<Record<string, string>> = {
  env: "dev",
  region: "useast1",
};
/** Author of the demo commits: PackageRevisions show it as publishedBy. */
const DEMO_AUTHOR = { name: "Platform Team", email: "platform-team@example.com" };

export interface DemoOptions {
  /** Folder for the store's bare cache clones (any empty or reused folder). */
  cacheRoot: string;
  /** The server's basic-auth user and password, when it was started with them. */
  credentials?: { username: string; password: string };
  /** metadata.namespace of the manifests; omitted by default (kubectl's current namespace). */
  namespace?: string;
  client?: GitClientKind;
}

interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
}

export interface RepositoryManifest {
  apiVersion: "config.porch.kpt.dev/v1alpha1";
  kind: "Repository";
  metadata: Metadata;
  spec: RepositorySpec;
}

export interface SecretManifest {
  apiVersion: "v1";
  kind: "Secret";
  metadata: Metadata;
  type: "kubernetes.io/basic-auth";
  stringData: { username: string; password: string };
}

export interface DemoRepositories {
  /** In apply order: the Secret (with credentials) first, then the Repositories. */
  manifests: (SecretManifest | RepositoryManifest)[];
  repositories: RepositoryManifest[];
  secret?: SecretManifest;
  /** Wall-clock time of the git work, in milliseconds. */
  elapsedMs: number;
}

/**
 * Creates (or completes, when they exist already) `blueprints.git` with the demo packages and
 * `deployments.git` with only its `main` branch. Safe to call again on the same server.
 */
export async function createDemoRepositories(
  server: Pick<GitServer, "createBareRepo">,
  options: DemoOptions,
): Promise<DemoRepositories> {
  const started = Date.now();
  const [blueprintsUrl, deploymentsUrl] = await Promise.all([
    prepareRepository(server, BLUEPRINTS_REPOSITORY, options, publishBlueprints),
    prepareRepository(
      server,
      DEPLOYMENTS_REPOSITORY,
      options,
      async store => void (await store.open()),
    ),
  ]);
  const secret = options.credentials && secretManifest(options.credentials, options.namespace);
  const secretRef = secret && { name: secret.metadata.name };
  const repositories = [
    repositoryManifest(BLUEPRINTS_REPOSITORY, options.namespace, {
      description: "Demo blueprints: reusable packages to clone and customise",
      deployment: false,
      git: { repo: blueprintsUrl, branch: "main", ...(secretRef && { secretRef }) },
    }),
    repositoryManifest(
      DEPLOYMENTS_REPOSITORY,
      options.namespace,
      {
        description: "Demo deployment repository: packages ready to apply to the dev cluster",
        deployment: true,
        git: { repo: deploymentsUrl, branch: "main", ...(secretRef && { secretRef }) },
      },
      { ...DEPLOYMENTS_LABELS },
    ),
  ];
  return {
    manifests: [...(secret ? [secret] : []), ...repositories],
    repositories,
    ...(secret && { secret }),
    elapsedMs: Date.now() - started,
  };
}

/** The manifests as one multi-document YAML stream (for `kubectl apply -f -`). */
export function manifestsYaml(manifests: readonly object[]): string {
  return stringifyYamlFile({ docs: manifests.map(m => new Document(m)), compactSeq: false });
}

export async function prepareRepository(
  server: Pick<GitServer, "createBareRepo">,
  name: string,
  options: DemoOptions,
  fill: (store: ContentStore) => Promise<void>,
): Promise<string> {
  const { url } = await server.createBareRepo(name, { initialBranch: "main" });
  const config: RepositoryConfig = {
    url,
    branch: "main",
    // An empty repository gets main with the store's "Initial commit" README, as Porch makes it.
    createBranch: true,
    author: DEMO_AUTHOR,
    ...(options.credentials && { credentials: { type: "basic", ...options.credentials } }),
  };
  const store = openContentStore(config, { cacheRoot: options.cacheRoot, client: options.client });
  try {
    await fill(store);
  } finally {
    store.close();
  }
  return url;
}

async function publishBlueprints(store: ContentStore): Promise<void> {
  await publishPackages(store, DEMO_BLUEPRINTS);
}

/** Writes packages and their revisions through the store; revisions already there are kept. */
export async function publishPackages(
  store: ContentStore,
  packages: readonly DemoPackage[],
): Promise<void> {
  const existing = await store.listPackageRevisions();
  for (const pkg of packages) {
    for (const revision of pkg.revisions) await ensureRevision(store, pkg, revision, existing);
  }
}

/** Brings one revision to its demo lifecycle; revisions already there are left as they are. */
async function ensureRevision(
  store: ContentStore,
  pkg: DemoPackage,
  revision: DemoRevision,
  existing: readonly PackageRevisionInfo[],
): Promise<void> {
  const key = { packageName: pkg.name, workspaceName: revision.workspaceName };
  const found = existing.find(
    r => r.packageName === key.packageName && r.workspaceName === key.workspaceName,
  );
  let lifecycle: Lifecycle | undefined = found?.lifecycle;
  if (lifecycle === undefined) {
    // A revision to publish starts as Proposed: same commit and refs as Draft → Proposed, one push fewer.
    const draft = await store.createNewDraft(
      key,
      revision.lifecycle === "Published" ? "Proposed" : "Draft",
    );
    await draft.updateResources({ ...revision.files }, revision.commitMessage);
    lifecycle = (await draft.closeDraft()).lifecycle;
  }
  if (
    revision.lifecycle !== "Published" ||
    lifecycle === "Published" ||
    lifecycle === "DeletionProposed"
  )
    return;
  if (lifecycle === "Draft") await store.updateLifecycle(key, "Proposed");
  await store.updateLifecycle(key, "Published");
}

export function repositoryManifest(
  name: string,
  namespace: string | undefined,
  spec: RepositorySpec,
  labels?: Record<string, string>,
): RepositoryManifest {
  return {
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "Repository",
    metadata: { name, ...(namespace && { namespace }), ...(labels && { labels }) },
    spec,
  };
}

function secretManifest(
  credentials: { username: string; password: string },
  namespace?: string,
): SecretManifest {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: DEMO_SECRET_NAME, ...(namespace && { namespace }) },
    type: "kubernetes.io/basic-auth",
    stringData: { username: credentials.username, password: credentials.password },
  };
}
