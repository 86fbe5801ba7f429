// What a git server killed mid-push must never leave behind, read from the API (fresh LISTs) and
// from a mirror clone of every deployment repository: writes the API reports done that git does
// not have, and refs in git that are revisions but incomplete.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { conditionOf, paths, type KubeObject } from "../bench/kube";
import type { Fleet } from "../bench/scenarios/fleet";
import { inGit } from "../bench/scenarios/upgrade";
import type { FaultContext } from "./context";

const run = promisify(execFile);

export interface GitWriteAudit {
  /**
   * Writes the API reports done that git does not have, one per PackageRevision:
   * - a Draft or Proposed revision whose Ready says "<Lifecycle> in git" (for its current
   *   generation) without its drafts/ or proposed/ branch in git, or whose branch's package
   *   directory lacks a file of its PackageRevisionResources or holds another content (compared
   *   only when Rendered says the resources are the rendered ones the operator committed);
   * - a Published revision whose Ready says "Published in git" without its <package>/v<N> tag,
   *   or whose tag's package directory has no Kptfile.
   */
  lostCommits: number;
  /**
   * Refs that are revisions but incomplete:
   * - a drafts/ or proposed/ branch, or a <package>/v<N> tag, whose package directory has no
   *   Kptfile (a commit without the package);
   * - a drafts/ or proposed/ branch no PackageRevision stands for (a push the operator never
   *   recorded, left by a retry that chose another branch);
   * - an open PackageRevision whose source ran (status.creationSource set: its commit was
   *   pushed) without its branch in git.
   */
  halfWritten: number;
  details: string[];
}

const str = (v: unknown) => (typeof v === "string" ? v : "");
const lifecycleOf = (pr: KubeObject) => str(pr.spec?.lifecycle);
const isOpen = (pr: KubeObject) => ["Draft", "Proposed"].includes(lifecycleOf(pr));
const branchOf = (pr: KubeObject) =>
  `refs/heads/${lifecycleOf(pr) === "Proposed" ? "proposed" : "drafts"}/${str(pr.spec?.packageName)}/${str(pr.spec?.workspaceName)}`;

/** Ready says git has the revision in its current lifecycle, for the current spec. */
const inGitNow = (pr: KubeObject) => inGit(lifecycleOf(pr))(pr);

/** A bare mirror of one repository, read with plain git. */
class Mirror {
  constructor(readonly dir: string) {}

  static async of(url: string, dir: string): Promise<Mirror> {
    await run("git", ["clone", "--quiet", "--mirror", url, dir]);
    return new Mirror(dir);
  }

  async refs(): Promise<Set<string>> {
    const { stdout } = await this.git("for-each-ref", "--format=%(refname)");
    return new Set(stdout.split("\n").filter(Boolean));
  }

  /** Files under `dir` at `ref` (paths relative to `dir`). */
  async files(ref: string, dir: string): Promise<string[]> {
    const { stdout } = await this.git("ls-tree", "-r", "--name-only", ref, "--", `${dir}/`);
    return stdout
      .split("\n")
      .filter(Boolean)
      .map(p => p.slice(dir.length + 1));
  }

  async show(ref: string, path: string): Promise<string> {
    return (await this.git("show", `${ref}:${path}`)).stdout;
  }

  private git(...args: string[]) {
    return run("git", [`--git-dir=${this.dir}`, ...args], { maxBuffer: 64 * 1024 * 1024 });
  }
}

async function list(ctx: FaultContext, path: string): Promise<KubeObject[]> {
  return (await ctx.api.json<{ items: KubeObject[] }>("GET", path)).items;
}

export async function auditGitWrites(ctx: FaultContext, fleet: Fleet): Promise<GitWriteAudit> {
  const [revisions, resources] = await Promise.all([
    list(ctx, paths.pr(fleet.ns)),
    list(ctx, paths.prr(fleet.ns)),
  ]);
  const prrs = new Map(resources.map(r => [r.metadata.name, r]));
  const audit: GitWriteAudit = { lostCommits: 0, halfWritten: 0, details: [] };
  const problem = (key: "lostCommits" | "halfWritten", what: string) => {
    audit[key] += 1;
    audit.details.push(`${key}: ${what}`);
  };
  for (const repo of fleet.repos) {
    const url = (fleet.repositories.items.get(repo)?.spec?.git as { repo?: string } | undefined)
      ?.repo;
    if (!url) throw new Error(`Repository ${repo} has no git URL`);
    const git = await Mirror.of(url, join(ctx.workDir, "audit", repo));
    const refs = await git.refs();
    const inRepo = revisions.filter(pr => pr.spec?.repository === repo);
    const branches = new Set(inRepo.filter(isOpen).map(branchOf));

    for (const ref of refs) {
      const m = /^refs\/(?:heads\/(?:drafts|proposed)\/(.+)\/[^/]+|tags\/(.+)\/v\d+)$/.exec(ref);
      if (!m) continue;
      const pkg = m[1] ?? m[2];
      if (!(await git.files(ref, pkg)).includes("Kptfile"))
        problem("halfWritten", `${repo}: ${ref} has no ${pkg}/Kptfile`);
      if (m[1] !== undefined && !branches.has(ref))
        problem("halfWritten", `${repo}: ${ref} has no PackageRevision`);
    }

    for (const pr of inRepo) {
      const name = pr.metadata.name;
      const pkg = str(pr.spec?.packageName);
      if (isOpen(pr)) {
        const ref = branchOf(pr);
        if (!refs.has(ref)) {
          if (inGitNow(pr))
            problem("lostCommits", `${name} is ${lifecycleOf(pr)} in git: no ${ref}`);
          else if (pr.status?.creationSource)
            problem("halfWritten", `${name} was created from its source: no ${ref}`);
          continue;
        }
        if (!inGitNow(pr)) continue;
        const prr = prrs.get(name);
        const wanted = (prr?.spec?.resources ?? {}) as Record<string, string>;
        const there = new Set(await git.files(ref, pkg));
        const missing = Object.keys(wanted).filter(f => !there.has(f));
        if (missing.length > 0) {
          problem("lostCommits", `${name}: ${ref} lacks ${missing.join(", ")}`);
          continue;
        }
        const rendered =
          conditionOf(pr, "Rendered")?.status === "True" &&
          pr.status?.observedPrrResourceVersion === prr?.metadata.resourceVersion;
        if (!rendered) continue;
        for (const [file, content] of Object.entries(wanted))
          if ((await git.show(ref, `${pkg}/${file}`)) !== content)
            problem("lostCommits", `${name}: ${ref} holds another ${file} than its resources`);
      } else if (lifecycleOf(pr) === "Published" && inGitNow(pr)) {
        const revision = pr.status?.revision;
        if (typeof revision !== "number" || revision < 1) continue; // the main-branch placeholder
        const tag = `refs/tags/${pkg}/v${revision}`;
        if (!refs.has(tag)) problem("lostCommits", `${name} is Published in git: no ${tag}`);
        else if (!(await git.files(tag, pkg)).includes("Kptfile"))
          problem("lostCommits", `${name}: ${tag} has no ${pkg}/Kptfile`);
      }
    }
  }
  return audit;
}
