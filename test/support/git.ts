import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { publishPackages } from "../../hack/demo/repositories";
import type { DemoPackage } from "../../hack/demo/packages";
import { createBareRepo, PUSH_STARTED } from "../../hack/git-server";
import { openContentStore } from "../../lib/git";
import { kubectlOk } from "./kubectl";

export type { DemoPackage };

/** A package revision: workspace, lifecycle and files, as the demo content is written. */
export const revision = (
  workspaceName: string,
  files: Record<string, string>,
  lifecycle: "Draft" | "Published" = "Published",
) => ({
  workspaceName,
  lifecycle,
  commitMessage: `${workspaceName}`,
  files,
});

export const kptfile = (name: string, pipeline = "") =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n  annotations:\n    config.kubernetes.io/local-config: "true"\n${pipeline}`;

interface Server {
  url: string;
  root: string;
  credentials?: { username: string; password: string };
}

/** The open git server (or the one behind basic auth) that global setup started. */
export function gitServer(auth = false): Server {
  const e = process.env;
  return auth
    ? {
        url: e.PORCH_PEPR_E2E_AUTH_GIT_URL ?? "",
        root: e.PORCH_PEPR_E2E_AUTH_GIT_ROOT ?? "",
        credentials: {
          username: e.PORCH_PEPR_E2E_AUTH_GIT_USER ?? "",
          password: e.PORCH_PEPR_E2E_AUTH_GIT_PASSWORD ?? "",
        },
      }
    : { url: e.PORCH_PEPR_E2E_GIT_URL ?? "", root: e.PORCH_PEPR_E2E_GIT_ROOT ?? "" };
}

/**
 * A new bare repository on a test git server with `packages` published through the content
 * store (the layout the operator reads); returns its URL. Names get a random suffix.
 */
export async function createGitRepository(
  prefix: string,
  packages: readonly DemoPackage[] = [],
  auth = false,
): Promise<string> {
  const server = gitServer(auth);
  const { url } = await createBareRepo(
    server.root,
    server.url,
    `${prefix}-${randomBytes(3).toString("hex")}`,
  );
  const credentials = server.credentials && { type: "basic" as const, ...server.credentials };
  await publishTo(url, packages, { credentials });
  return url;
}

/**
 * Opens (creating `main` in) the repository at `url` through the content store and publishes
 * `packages` there, as the operator lays them out.
 */
export async function publishTo(
  url: string,
  packages: readonly DemoPackage[],
  options: {
    credentials?: { type: "basic"; username: string; password: string };
    cacheParent?: string;
  } = {},
): Promise<void> {
  const store = openContentStore(
    { url, createBranch: true, ...(options.credentials && { credentials: options.credentials }) },
    { cacheRoot: mkdtempSync(join(options.cacheParent ?? tmpdir(), "porch-e2e-writer-")) },
  );
  try {
    await store.open();
    await publishPackages(store, packages);
  } finally {
    store.close();
  }
}

/** Registers a Repository object for a git URL. */
export function registerRepository(
  namespace: string,
  name: string,
  url: string,
  options: {
    deployment?: boolean;
    labels?: Record<string, string>;
    secretRef?: string;
    schedule?: string;
  } = {},
): void {
  kubectlOk(
    ["apply", "-n", namespace, "-f", "-"],
    JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "Repository",
      metadata: { name, labels: options.labels ?? {} },
      spec: {
        deployment: options.deployment ?? false,
        git: {
          repo: url,
          branch: "main",
          ...(options.secretRef && { secretRef: { name: options.secretRef } }),
        },
        ...(options.schedule && { sync: { schedule: options.schedule } }),
      },
    }),
  );
}

/** Applies a `kubernetes.io/basic-auth` Secret, as a Repository's secretRef names it. */
export function applyBasicAuthSecret(
  namespace: string,
  name: string,
  credentials: { username?: string; password?: string },
): void {
  kubectlOk(
    ["apply", "-n", namespace, "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name },
      type: "kubernetes.io/basic-auth",
      stringData: { username: credentials.username, password: credentials.password },
    }),
  );
}

/**
 * Pushes `files` as the main branch of `url` (and `tags` on that commit) with plain git: content
 * our store would refuse or could not write.
 */
export function pushWithGit(
  url: string,
  files: Record<string, string | Buffer>,
  tags: string[] = [],
): void {
  const dir = mkdtempSync(join(tmpdir(), "porch-e2e-hostile-"));
  try {
    const git = (...args: string[]) =>
      execFileSync("git", ["-C", dir, "-c", "user.name=e2e", "-c", "user.email=e2e@x", ...args]);
    git("init", "-q", "-b", "main");
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    git("add", "-A");
    git("commit", "-qm", "hostile content");
    for (const tag of tags) git("tag", tag);
    git("push", "-q", "--force", url, "HEAD:refs/heads/main", ...tags.map(t => `refs/tags/${t}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Pushes the e2e git server received for the repository at `url` (its log has a line each). */
export function pushesTo(url: string): number {
  const log = readFileSync(
    join(process.env.PORCH_PEPR_E2E_STATE ?? "", "logs", "git-server.log"),
    "utf8",
  );
  const repo = new URL(url).pathname.replace(/\/$/, "");
  return log.split("\n").filter(line => line === `${PUSH_STARTED} ${repo}/git-receive-pack`).length;
}
