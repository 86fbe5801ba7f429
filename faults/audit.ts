// What a fault must never leave behind, read from the API (fresh LISTs, not the watch caches)
// and from git (ls-remote of every deployment repository): the fleet's invariants.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { conditionOf, paths, type KubeObject } from "../bench/kube";
import type { Fleet } from "../bench/scenarios/fleet";
import type { FaultContext } from "./context";
import type { FleetCounts } from "./results";

const run = promisify(execFile);

export interface FleetAudit extends FleetCounts {
  /** One line per problem, for the log. */
  details: string[];
}

async function list(ctx: FaultContext, path: string): Promise<KubeObject[]> {
  return (await ctx.api.json<{ items: KubeObject[] }>("GET", path)).items;
}

/** Every ref of a repository: name → commit. */
export async function gitRefs(url: string): Promise<Map<string, string>> {
  const { stdout } = await run("git", ["ls-remote", url], { maxBuffer: 64 * 1024 * 1024 });
  const refs = new Map<string, string>();
  for (const line of stdout.split("\n").filter(Boolean)) {
    const [sha, ref] = line.split("\t");
    refs.set(ref, sha);
  }
  return refs;
}

const ownedBy = (pr: KubeObject, pv: KubeObject) =>
  (pr.metadata.ownerReferences ?? []).some(
    ref => ref.kind === "PackageVariant" && ref.uid === pv.metadata.uid,
  );

const lifecycleOf = (pr: KubeObject) => pr.spec?.lifecycle as string | undefined;
const isOpen = (pr: KubeObject) => ["Draft", "Proposed"].includes(lifecycleOf(pr) ?? "");
const str = (v: unknown) => (typeof v === "string" ? v : "");

/** The branch an open revision lives on in git (lib/git/layout.ts). */
const branchOf = (pr: KubeObject) =>
  `refs/heads/${lifecycleOf(pr) === "Proposed" ? "proposed" : "drafts"}/${str(pr.spec?.packageName)}/${str(pr.spec?.workspaceName)}`;

const rendered = (pr: KubeObject, prr: KubeObject | undefined) =>
  conditionOf(pr, "Rendered")?.status === "True" &&
  prr !== undefined &&
  pr.status?.observedPrrResourceVersion === prr.metadata.resourceVersion;

/** What the audit reads: the namespace's objects and every deployment repository's refs. */
export interface FleetSnapshot {
  /** Deployment repository names and the package names each should hold (the set's targets). */
  targets: { repos: string[]; packageNames: string[] };
  variants: KubeObject[];
  revisions: KubeObject[];
  resources: KubeObject[];
  /** Repository name → ref → commit. */
  refs: Map<string, Map<string, string>>;
  /** Tags seen earlier (after a publish): each must still point where it did. */
  tagsBefore?: Map<string, Map<string, string>>;
}

/**
 * The fleet's invariants: every target has one PackageVariant with exactly one open draft (when
 * `openDrafts`), each rendered and on its branch; git holds no open branch without a revision and
 * every published revision's tag; nothing is stuck deleting.
 */
export function auditSnapshot(
  snapshot: FleetSnapshot,
  options: { openDrafts: boolean },
): FleetAudit {
  const { variants, revisions, resources } = snapshot;
  const prrs = new Map(resources.map(r => [r.metadata.name, r]));
  const audit: FleetAudit = {
    variants: variants.length,
    duplicates: 0,
    orphanBranches: 0,
    lost: 0,
    unrendered: 0,
    missingTags: 0,
    stuckFinalizers: 0,
    details: [],
  };
  const problem = (key: keyof Omit<FleetAudit, "details" | "variants">, what: string) => {
    audit[key] += 1;
    audit.details.push(`${key}: ${what}`);
  };

  // Targets: one PackageVariant each.
  const byTarget = new Map<string, KubeObject[]>();
  for (const pv of variants) {
    const d = (pv.spec?.downstream ?? {}) as { repo?: string; package?: string };
    const key = `${d.repo}/${d.package}`;
    byTarget.set(key, [...(byTarget.get(key) ?? []), pv]);
  }
  for (const repo of snapshot.targets.repos)
    for (const pkg of snapshot.targets.packageNames) {
      const found = byTarget.get(`${repo}/${pkg}`) ?? [];
      if (found.length === 0) problem("lost", `no PackageVariant for ${repo}/${pkg}`);
      for (const extra of found.slice(1))
        problem("duplicates", `second PackageVariant ${extra.metadata.name} for ${repo}/${pkg}`);
    }

  // Open drafts: exactly one per variant, rendered.
  for (const pv of variants) {
    const open = revisions.filter(pr => isOpen(pr) && ownedBy(pr, pv));
    if (options.openDrafts && open.length === 0)
      problem("lost", `${pv.metadata.name} has no open draft`);
    for (const extra of open.slice(1))
      problem("duplicates", `${pv.metadata.name} has a second open draft ${extra.metadata.name}`);
    for (const pr of open)
      if (!rendered(pr, prrs.get(pr.metadata.name)))
        problem("unrendered", `${pr.metadata.name} is not rendered`);
  }

  // Deleting objects whose finalizer was never removed.
  for (const obj of [...variants, ...revisions])
    if (obj.metadata.deletionTimestamp)
      problem("stuckFinalizers", `${obj.kind ?? ""} ${obj.metadata.name} is still deleting`);

  // Git: branches and tags of every deployment repository against the revisions.
  for (const repo of snapshot.targets.repos) {
    const refs = snapshot.refs.get(repo) ?? new Map<string, string>();
    const inRepo = revisions.filter(pr => pr.spec?.repository === repo);
    const branches = new Set(inRepo.filter(isOpen).map(branchOf));
    for (const pr of inRepo.filter(isOpen))
      if (!refs.has(branchOf(pr)))
        problem("lost", `${pr.metadata.name}: ${branchOf(pr)} is not in git`);
    const perPackage = new Map<string, number>();
    for (const ref of refs.keys()) {
      const m = /^refs\/heads\/(drafts|proposed)\/(.+)\/[^/]+$/.exec(ref);
      if (!m) continue;
      if (!branches.has(ref)) problem("orphanBranches", `${repo}: ${ref} has no PackageRevision`);
      perPackage.set(m[2], (perPackage.get(m[2]) ?? 0) + 1);
    }
    for (const [pkg, count] of perPackage)
      if (count > 1) problem("duplicates", `${repo}: ${count} open branches of ${pkg}`);
    for (const pr of inRepo.filter(pr => lifecycleOf(pr) === "Published")) {
      const revision = pr.status?.revision;
      if (typeof revision !== "number" || revision < 1) continue; // the main-branch placeholder
      const tag = `refs/tags/${str(pr.spec?.packageName)}/v${revision}`;
      if (!refs.has(tag)) problem("missingTags", `${repo}: ${tag} is missing`);
    }
    for (const [ref, sha] of snapshot.tagsBefore?.get(repo) ?? [])
      if (ref.startsWith("refs/tags/") && refs.has(ref) && refs.get(ref) !== sha)
        problem("missingTags", `${repo}: ${ref} moved from ${sha} to ${refs.get(ref)}`);
  }
  return audit;
}

/** Reads the fleet's objects (fresh LISTs) and refs (ls-remote), then audits them. */
export async function auditFleet(
  ctx: FaultContext,
  fleet: Fleet,
  options: { openDrafts: boolean; tagsBefore?: Map<string, Map<string, string>> },
): Promise<FleetAudit> {
  const [variants, revisions, resources] = await Promise.all([
    list(ctx, paths.pv(fleet.ns)),
    list(ctx, paths.pr(fleet.ns)),
    list(ctx, paths.prr(fleet.ns)),
  ]);
  return auditSnapshot(
    {
      targets: { repos: fleet.repos, packageNames: fleet.packageNames },
      variants,
      revisions,
      resources,
      refs: await fleetRefs(fleet),
      tagsBefore: options.tagsBefore,
    },
    options,
  );
}

/** Every deployment repository's refs, by Repository name. */
export async function fleetRefs(fleet: Fleet): Promise<Map<string, Map<string, string>>> {
  const refs = new Map<string, Map<string, string>>();
  for (const repo of fleet.repos) {
    const git = fleet.repositories.items.get(repo)?.spec?.git as { repo?: string } | undefined;
    if (!git?.repo) throw new Error(`Repository ${repo} has no git URL`);
    refs.set(repo, await gitRefs(git.repo));
  }
  return refs;
}
