// The floors: what the fan-out's objects and branches cost with no operator logic at all,
// measured on the same machine in the same run.
// - API floor: the fleet's PackageVariants, draft PackageRevisions and their
//   PackageRevisionResources created again, in a namespace of their own, through
//   kubernetes-fluent-client (the operator's client), then through one keep-alive HTTPS
//   connection pool (what the API server itself costs).
// - Git floor: one draft branch with one commit per variant, pushed by a bare loop with the
//   git client the content store uses, into fresh repositories on the same git server.
// - Real floor: only the writes that must happen, as fast as they can go: each object created
//   once and its status written once, each repository's new branches pushed together (many
//   refspecs per push, at most the operator's batch limit), and the API part and the git part
//   running at the same time. The two floors above add up one after the other and push one
//   branch per push: that is today's floor, kept for comparison.
// All run with the controller process frozen (SIGSTOP): it cannot touch the floor's objects
// (they are checked untouched, then deleted before it is resumed) nor compete for the CPU.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { K8s } from "kubernetes-fluent-client";
import { PackageRevision, PackageRevisionResources, PackageVariant } from "../crd-types";
import { mapLimit } from "../lib/controller/concurrency";
import { defaultClientKind, draftBranch, openContentStore, packagePath } from "../lib/git";
import { batchLimitsFromEnv, PushBatcher } from "../lib/git/push-batch";
import { CliGitClient } from "../lib/git/cli-client";
import type { GitClient, RefUpdate } from "../lib/git/client";
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

/** Each object's own status, as the operator writes it once (merge patch on /status). */
const fluentStatus = (kind: keyof FloorObjects, obj: KubeObject, ns: string) =>
  K8s(kinds[kind]).PatchStatus({
    metadata: { name: obj.metadata.name, namespace: ns },
    status: obj.status ?? {},
  } as never);

/**
 * The API writes a variant must cause, one variant after the other in each of
 * FLOOR_CONCURRENCY lanes: its PackageVariant created (fan-out only: an upgrade's exists), its
 * draft PackageRevision and PackageRevisionResources created, then one status write each.
 */
async function variantWrites(objects: FloorObjects, ns: string, createVariants: boolean) {
  const indexes = objects.variants.map((_, i) => i);
  await mapLimit(indexes, FLOOR_CONCURRENCY, async i => {
    if (createVariants) await fluentCreate("variants", bare(objects.variants[i], ns));
    await fluentCreate("revisions", bare(objects.revisions[i], ns));
    await fluentCreate("resources", bare(objects.resources[i], ns));
    await fluentStatus("revisions", objects.revisions[i], ns);
    await fluentStatus("resources", objects.resources[i], ns);
    await fluentStatus("variants", objects.variants[i], ns);
  });
}

export interface RealFloorRun {
  /** Wall time of the API part and the git part running together. */
  ms: number;
  apiMs: number;
  gitMs: number;
  pushes: number;
}

export interface RealFloor {
  fanOut: RealFloorRun;
  upgrade: RealFloorRun;
  /** Every object there, none with a finalizer, and the controller still frozen. */
  untouched: boolean;
}

/** All `n` of each kind are there and none has a finalizer (no controller took it). */
async function unclaimed(ctx: BenchContext, ns: string, n: number): Promise<boolean> {
  const lists = await Promise.all(
    [paths.pv(ns), paths.pr(ns), paths.prr(ns)].map(p =>
      ctx.api.json<{ items: KubeObject[] }>("GET", p).then(l => l.items),
    ),
  );
  return lists.every(
    items => items.length === n && items.every(o => !o.metadata.finalizers?.length),
  );
}

/**
 * Call inside withControllersFrozen. The real floor of the fan-out (variants, drafts, files and
 * their statuses; the drafts' branches) and of the upgrade (the variants exist and are not
 * timed; drafts, files, the three statuses; the branches), each with the API part and the git
 * part started together, into namespaces and repositories of their own.
 */
export async function realFloor(
  ctx: BenchContext,
  objects: FloorObjects,
  drafts: DraftContent[],
  pid: number,
): Promise<RealFloor> {
  const n = objects.variants.length;
  const run = async (name: "fanout" | "upgrade"): Promise<RealFloorRun> => {
    const ns = `bench-real-floor-${name}`;
    await ctx.api.create(paths.namespaces, { metadata: { name: ns } });
    if (name === "upgrade")
      await mapLimit(objects.variants, FLOOR_CONCURRENCY, v =>
        fluentCreate("variants", bare(v, ns)),
      );
    const repos = await floorRepos(ctx, drafts, `real-floor-${name}`);
    const start = performance.now();
    const [apiMs, git] = await Promise.all([
      variantWrites(objects, ns, name === "fanout").then(() => performance.now() - start),
      batchedGitFloor(repos, drafts),
    ]);
    const ms = round(performance.now() - start, 0);
    return { ms, apiMs: round(apiMs, 0), gitMs: git.ms, pushes: git.pushes };
  };
  const fanOut = await run("fanout");
  const upgrade = await run("upgrade");
  const namespaces = ["bench-real-floor-fanout", "bench-real-floor-upgrade"];
  const ok =
    processState(pid) === "T" &&
    (await Promise.all(namespaces.map(ns => unclaimed(ctx, ns, n)))).every(Boolean);
  await Promise.all(namespaces.map(ns => deleteNamespace(ctx.api, ns)));
  return { fanOut, upgrade, untouched: ok };
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

interface FloorRepo {
  url: string;
  client: GitClient;
  main: string;
  tree: string;
}

/** A fresh repository per deployment repository (`<prefix>-<repo>`), main as porch makes it. */
async function floorRepos(
  ctx: BenchContext,
  drafts: DraftContent[],
  prefix: string,
): Promise<Map<string, FloorRepo>> {
  const repos = new Map<string, FloorRepo>();
  for (const repo of new Set(drafts.map(d => d.repo))) {
    const { url } = await ctx.env.git.createBareRepo(`${prefix}-${repo}`);
    const cacheRoot = join(ctx.workDir, `${prefix}-setup`);
    const store = openContentStore({ url, createBranch: true }, { cacheRoot });
    await store.open().finally(() => store.close());
    const client = gitClient(join(ctx.workDir, `${prefix}-cache`, repo), url);
    await client.init();
    const main = (await client.fetch()).get("refs/heads/main")?.commit ?? "";
    repos.set(repo, { url, client, main, tree: (await client.readCommit(main)).tree });
  }
  return repos;
}

const who = { name: "bench", email: "bench@example.com" };

/** The draft's commit on top of main (its files replace the package's folder); the branch update. */
async function draftCommit(repo: FloorRepo, d: DraftContent): Promise<RefUpdate> {
  const { client, main, tree } = repo;
  const path = packagePath("", d.packageName);
  const root = await replaceSubtree(client, tree, path, await buildTree(client, d.files));
  const commit = await client.writeCommit({
    tree: root,
    parents: [main],
    message: `draft ${d.packageName}/${d.workspace}`,
    author: signatureNow(who),
    committer: signatureNow(who),
  });
  return { ref: draftBranch(path, d.workspace), oid: commit, expect: null };
}

/**
 * One branch per draft (`drafts/<package>/<workspace>`) with one commit of its files on top of
 * main, pushed one at a time, spread over as many repositories as the fleet has.
 */
export async function gitFloor(ctx: BenchContext, drafts: DraftContent[]): Promise<GitFloor> {
  const repos = await floorRepos(ctx, drafts, "floor");
  const start = performance.now();
  for (const d of drafts) {
    const repo = repos.get(d.repo)!;
    await repo.client.push([await draftCommit(repo, d)]);
  }
  const ms = round(performance.now() - start, 0);
  for (const { client } of repos.values()) client.close();
  return { ms, client: defaultClientKind(), branches: drafts.length };
}

export interface BatchedGitFloor extends GitFloor {
  /** Pushes made (each with up to the operator's batch limit of refspecs). */
  pushes: number;
}

/**
 * The drafts' branches as the operator batches them (lib/git/push-batch.ts, its limits from
 * the same settings): each repository's commits are written, then handed to a PushBatcher at
 * once, which sends them in as few pushes as its limits allow; repositories in parallel, as
 * their locks are independent. Closes the repositories' clients.
 */
async function batchedGitFloor(
  repos: Map<string, FloorRepo>,
  drafts: DraftContent[],
): Promise<BatchedGitFloor> {
  const limits = batchLimitsFromEnv(process.env);
  let pushes = 0;
  const start = performance.now();
  await mapLimit([...repos.keys()], FLOOR_CONCURRENCY, async name => {
    const repo = repos.get(name)!;
    const updates: RefUpdate[] = [];
    for (const d of drafts) if (d.repo === name) updates.push(await draftCommit(repo, d));
    // The repository's lock: one batch at a time, in order.
    let running = Promise.resolve();
    const batcher = new PushBatcher(
      limits,
      repo.url,
      run => {
        running = running.then(() => run()).then(() => undefined);
      },
      (refs, atomic) => {
        pushes++;
        return repo.client.pushRefs(refs, atomic);
      },
    );
    await Promise.all(updates.map(u => batcher.submit([[u]])));
    await running;
  });
  const ms = round(performance.now() - start, 0);
  for (const { client } of repos.values()) client.close();
  return { ms, client: defaultClientKind(), branches: drafts.length, pushes };
}
