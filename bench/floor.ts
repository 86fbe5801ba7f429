// The floors: what the fan-out's objects and branches cost with no operator logic at all,
// measured on the same machine in the same run.
// - API floor: the fleet's PackageVariants, draft PackageRevisions and their
//   PackageRevisionResources created again, in a namespace of their own, through
//   kubernetes-fluent-client (the operator's client), then through one keep-alive HTTPS
//   connection pool (what the API server itself costs).
// - Git floor: one draft branch with one commit per variant, pushed by a bare loop with the
//   git client the content store uses, into fresh repositories on the same git server.
// Both run with the controller process frozen (SIGSTOP): it cannot touch the floor's objects
// (they are checked untouched, then deleted before it is resumed) nor compete for the CPU.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { K8s } from "kubernetes-fluent-client";
import { PackageRevision, PackageRevisionResources, PackageVariant } from "../crd-types";
import { mapLimit } from "../lib/controller/concurrency";
import { defaultClientKind, draftBranch, openContentStore, packagePath } from "../lib/git";
import { CliGitClient } from "../lib/git/cli-client";
import type { GitClient } from "../lib/git/client";
import { signatureNow } from "../lib/git/commit-format";
import { IsoGitClient } from "../lib/git/iso-client";
import { buildTree, replaceSubtree } from "../lib/git/tree";
import { deleteNamespace, paths, type KubeObject } from "./kube";
import { readPid, round } from "./metrics";
import { pidFile, type BenchContext } from "./scenarios/context";
import type { Fleet } from "./scenarios/fleet";

const PV_LABEL = "config.porch.kpt.dev/packagevariant";

/** Requests in flight while creating: the most the operator's queues run (PackageRevision: 8). */
export const FLOOR_CONCURRENCY = 8;

export interface FloorObjects {
  variants: KubeObject[];
  revisions: KubeObject[];
  resources: KubeObject[];
}

export interface ApiFloor {
  /** Milliseconds per kind, fluent client. */
  fluent: { variants: number; revisions: number; resources: number; total: number };
  /** Milliseconds per kind, keep-alive HTTPS. */
  keepAlive: { variants: number; revisions: number; resources: number; total: number };
  untouched: boolean;
}

export interface DraftContent {
  repo: string;
  packageName: string;
  workspace: string;
  files: Record<string, string>;
}

/**
 * The fan-out's objects as the floors create them again: each PackageVariant, its clone draft
 * (as a Draft) and its files. Drafts a cut-short fan-out did not make are copies of a made one
 * under the right name (counted in `synthesized`).
 */
export function floorInputs(fleet: Fleet): {
  objects: FloorObjects;
  drafts: DraftContent[];
  synthesized: number;
} {
  const template = fleet.revisions.values.find(
    pr =>
      (pr.spec?.source as { cloneFrom?: unknown } | undefined)?.cloneFrom &&
      fleet.resources.items.has(pr.metadata.name) &&
      pr.metadata.labels?.[PV_LABEL],
  );
  if (!template) throw new Error("the fan-out made no clone draft to measure the floors with");
  const templateFiles = fleet.resources.items.get(template.metadata.name)!;
  const objects: FloorObjects = { variants: fleet.variants.values, revisions: [], resources: [] };
  const drafts: DraftContent[] = [];
  let synthesized = 0;
  for (const pv of fleet.variants.values) {
    const { repo, package: pkg } = pv.spec?.downstream as { repo: string; package: string };
    const workspace = "packagevariant-1";
    const name = `${repo}.${pkg}.${workspace}`;
    const ids = { repository: repo, packageName: pkg, workspaceName: workspace };
    const real = fleet.revisions.items.get(name) && fleet.resources.items.get(name);
    if (!real) synthesized++;
    const pr = fleet.revisions.items.get(name) ?? template;
    const prr = fleet.resources.items.get(name) ?? templateFiles;
    objects.revisions.push({
      ...pr,
      metadata: { ...pr.metadata, name },
      spec: { ...pr.spec, ...ids, lifecycle: "Draft" },
    });
    objects.resources.push({
      ...prr,
      metadata: { ...prr.metadata, name },
      spec: { ...prr.spec, ...ids },
    });
    const files = (prr.spec as { resources: Record<string, string> }).resources;
    drafts.push({ repo, packageName: pkg, workspace, files });
  }
  return { objects, drafts, synthesized };
}

/** The object as a client would create it: identity, labels and spec (and files). */
function bare(obj: KubeObject, ns: string): KubeObject {
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { name: obj.metadata.name, namespace: ns, labels: obj.metadata.labels },
    spec: obj.spec,
  };
}

type Creator = (kind: keyof FloorObjects, obj: KubeObject) => Promise<unknown>;

const kinds = {
  variants: PackageVariant,
  revisions: PackageRevision,
  resources: PackageRevisionResources,
};

const fluentCreate: Creator = (kind, obj) => K8s(kinds[kind]).Create(obj as never);

async function timedPhases(objects: FloorObjects, ns: string, create: Creator) {
  const ms = { variants: 0, revisions: 0, resources: 0, total: 0 };
  for (const kind of ["variants", "revisions", "resources"] as const) {
    const start = performance.now();
    await mapLimit(objects[kind], FLOOR_CONCURRENCY, o => create(kind, bare(o, ns)));
    ms[kind] = round(performance.now() - start, 0);
  }
  ms.total = ms.variants + ms.revisions + ms.resources;
  return ms;
}

function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
}

/** Waits until the kernel reports the process stopped (signal delivery is asynchronous). */
async function stopped(pid: number): Promise<void> {
  for (let i = 0; i < 50 && processState(pid) !== "T"; i++)
    await new Promise(r => setTimeout(r, 20));
  if (processState(pid) !== "T") throw new Error("the controller process did not stop");
}

/** All `n` of each kind are there and only the benchmark wrote them (no finalizer, no status). */
async function untouched(ctx: BenchContext, ns: string, n: number): Promise<boolean> {
  const lists = await Promise.all(
    [paths.pv(ns), paths.pr(ns), paths.prr(ns)].map(p =>
      ctx.api.json<{ items: KubeObject[] }>("GET", p).then(l => l.items),
    ),
  );
  return lists.every(
    items =>
      items.length === n &&
      items.every(
        o =>
          !o.metadata.finalizers?.length &&
          (o.status === undefined || Object.keys(o.status).length === 0) &&
          (o.metadata.managedFields ?? []).length === 1,
      ),
  );
}

/**
 * Runs `fn` with the controller process frozen (SIGSTOP): it can make no request and push
 * nothing meanwhile, so neither floor is disturbed by, nor seen by, the operator.
 */
export async function withControllersFrozen<T>(
  ctx: BenchContext,
  fn: (pid: number) => Promise<T>,
): Promise<T> {
  const pid = readPid(pidFile(ctx, "watcher"));
  if (!pid) throw new Error("the controller process is not running");
  process.kill(pid, "SIGSTOP");
  try {
    await stopped(pid);
    return await fn(pid);
  } finally {
    process.kill(pid, "SIGCONT");
  }
}

/** Call inside withControllersFrozen. */
export async function apiFloor(
  ctx: BenchContext,
  objects: FloorObjects,
  pid: number,
): Promise<ApiFloor> {
  const n = objects.variants.length;
  const [fluentNs, rawNs] = ["bench-floor-fluent", "bench-floor-https"];
  for (const ns of [fluentNs, rawNs])
    await ctx.api.create(paths.namespaces, { metadata: { name: ns } });
  const fluent = await timedPhases(objects, fluentNs, fluentCreate);
  const rawPath = { variants: paths.pv, revisions: paths.pr, resources: paths.prr };
  const keepAlive = await timedPhases(objects, rawNs, (kind, obj) =>
    ctx.api.create(rawPath[kind](rawNs), obj),
  );
  // Checked while the controllers are still frozen.
  const ok =
    processState(pid) === "T" &&
    (await untouched(ctx, fluentNs, n)) &&
    (await untouched(ctx, rawNs, n));
  await Promise.all([fluentNs, rawNs].map(ns => deleteNamespace(ctx.api, ns)));
  return { fluent, keepAlive, untouched: ok };
}

export interface GitFloor {
  ms: number;
  client: string;
  branches: number;
}

function gitClient(gitdir: string, url: string): GitClient {
  const options = { gitdir, url, branch: "main" };
  return defaultClientKind() === "cli" ? new CliGitClient(options) : new IsoGitClient(options);
}

/**
 * One branch per draft (`drafts/<package>/<workspace>`) with one commit of its files on top of
 * main, pushed one at a time, spread over as many repositories as the fleet has.
 */
export async function gitFloor(ctx: BenchContext, drafts: DraftContent[]): Promise<GitFloor> {
  const repos = [...new Set(drafts.map(d => d.repo))];
  const clients = new Map<string, { client: GitClient; main: string; tree: string }>();
  for (const repo of repos) {
    const { url } = await ctx.env.git.createBareRepo(`floor-${repo}`);
    const cacheRoot = join(ctx.workDir, "floor-setup");
    const store = openContentStore({ url, createBranch: true }, { cacheRoot });
    await store.open().finally(() => store.close());
    const client = gitClient(join(ctx.workDir, "floor-cache", repo), url);
    await client.init();
    const main = (await client.fetch()).get("refs/heads/main")?.commit ?? "";
    clients.set(repo, { client, main, tree: (await client.readCommit(main)).tree });
  }
  const who = { name: "bench", email: "bench@example.com" };
  const start = performance.now();
  for (const d of drafts) {
    const { client, main, tree } = clients.get(d.repo)!;
    const path = packagePath("", d.packageName);
    const root = await replaceSubtree(client, tree, path, await buildTree(client, d.files));
    const commit = await client.writeCommit({
      tree: root,
      parents: [main],
      message: `draft ${d.packageName}/${d.workspace}`,
      author: signatureNow(who),
      committer: signatureNow(who),
    });
    await client.push([{ ref: draftBranch(path, d.workspace), oid: commit, expect: null }]);
  }
  const ms = round(performance.now() - start, 0);
  for (const { client } of clients.values()) client.close();
  return { ms, client: defaultClientKind(), branches: drafts.length };
}
