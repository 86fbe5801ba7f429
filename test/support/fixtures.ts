import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishPackages } from "../../hack/demo/repositories";
import { openContentStore } from "../../lib/git";
import { createGitRepository, kptfile, registerRepository, revision } from "./git";
import { getJson, mergePatch } from "./kubectl";
import { eventually } from "./wait";

const urls = new Map<string, string>();

/** A registered Repository backed by a new git repository (deployment repository, with labels). */
export async function createRepository(
  namespace: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<string> {
  const url = await createGitRepository(name);
  urls.set(`${namespace}/${name}`, url);
  registerRepository(namespace, name, url, { labels, deployment: true });
  return url;
}

/**
 * Publishes revision `v<N>` of a small package into a repository created by createRepository,
 * from outside the operator, then asks for a sync and waits for its PackageRevision.
 */
export async function publishRevision(
  namespace: string,
  repo: string,
  pkg: string,
  n: number,
): Promise<void> {
  const url = urls.get(`${namespace}/${repo}`);
  if (!url) throw new Error(`repository ${repo} was not created by createRepository`);
  const store = openContentStore(
    { url },
    { cacheRoot: mkdtempSync(join(tmpdir(), "porch-e2e-publish-")) },
  );
  try {
    const files = {
      Kptfile: kptfile(pkg),
      "cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${pkg}\ndata:\n  revision: "${n}"\n`,
    };
    await publishPackages(store, [{ name: pkg, revisions: [revision(`v${n}`, files)] }]);
  } finally {
    store.close();
  }
  syncRepository(namespace, repo);
  const name = `${repo}.${pkg.replace(/\//g, ".")}.v${n}`;
  await eventually(
    `${name} mirrored`,
    () =>
      getJson<{ status?: { revision?: number } }>("packagerevision", name, namespace)?.status
        ?.revision === n
        ? true
        : undefined,
    60_000,
  );
}

/** Asks the Repository controller to sync `repo` now (spec.sync.runOnceAt). */
export function syncRepository(namespace: string, repo: string): void {
  mergePatch("repository", repo, namespace, {
    spec: { sync: { runOnceAt: new Date().toISOString() } },
  });
}
