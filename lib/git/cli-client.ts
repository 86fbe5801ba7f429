// GitClient on the git CLI (execFile of `git`): the fastest option, needs git in the image.
// Credentials travel as an http.extraHeader in GIT_CONFIG_* environment variables, never in argv
// or the URL, so they do not show in the process list or in git's own messages.
import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import {
  authorizationHeader,
  secretsOf,
  type ClientOptions,
  type CommitInfo,
  type CommitSpec,
  type GitClient,
  type RefMap,
  type RefUpdate,
  type TreeEntry,
} from "./client";
import { GitStoreError, PushRejectedError, displayUrl, scrubSecrets } from "./errors";
import { CatFileBatch } from "./cat-file";
import { parseCommit, parseSignature } from "./commit-format";
import { encodeCommit, encodeTree, parseTree, writeLooseObject } from "./loose-objects";

interface RunResult {
  stdout: Buffer;
  stderr: string;
}

export class CliGitClient implements GitClient {
  readonly kind = "cli" as const;
  private readonly secrets: string[];
  private readonly env: NodeJS.ProcessEnv;
  private readonly reader: CatFileBatch;

  constructor(private readonly opts: ClientOptions) {
    this.secrets = secretsOf(opts.credentials);
    this.env = gitEnv(authorizationHeader(opts.credentials));
    this.reader = new CatFileBatch(opts.gitdir, this.env);
  }

  async init(): Promise<void> {
    if (await exists(join(this.opts.gitdir, "HEAD"))) return;
    await this.git(["init", "--quiet", "--bare", this.opts.gitdir], { bare: false });
    // A foreground gc keeps two writers on one cache from racing a detached one.
    await this.git(["config", "gc.autoDetach", "false"]);
  }

  async fetch(): Promise<RefMap> {
    const refspecs = ["+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"];
    await this.git(
      ["fetch", "--quiet", "--prune", "--no-write-fetch-head", this.opts.url, ...refspecs],
      {
        network: true,
      },
    );
    const out = await this.git([
      "for-each-ref",
      "--format=%(refname) %(objectname) %(*objectname)",
      "refs/remotes/origin/",
      "refs/tags/",
    ]);
    const refs: RefMap = new Map();
    for (const line of out.stdout.toString("utf8").split("\n")) {
      const [local, oid, peeled] = line.split(" ");
      if (!local || !oid) continue;
      const remote = local.startsWith("refs/remotes/origin/")
        ? `refs/heads/${local.slice(20)}`
        : local;
      if (remote === "refs/heads/HEAD") continue;
      refs.set(remote, { oid, commit: peeled || oid });
    }
    return refs;
  }

  async push(updates: RefUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    const args = ["push", "--porcelain", "--quiet"];
    if (updates.length > 1) args.push("--atomic");
    const refspecs: string[] = [];
    for (const u of updates) {
      // The lease alone allows a non-fast-forward update; a "+" on the refspec would override it.
      if (u.expect !== undefined) args.push(`--force-with-lease=${u.ref}:${u.expect ?? ""}`);
      refspecs.push(u.oid === null ? `:${u.ref}` : `${u.oid}:${u.ref}`);
    }
    try {
      await this.git([...args, this.opts.url, ...refspecs], { network: true });
    } catch (err) {
      if (
        err instanceof GitStoreError &&
        /\[rejected\]|\[remote rejected\]|stale info|atomic push failed|already exists|fetch first|non-fast-forward/.test(
          err.message,
        )
      ) {
        throw new PushRejectedError(
          `push to ${displayUrl(this.opts.url)} was rejected: ${err.message}`,
        );
      }
      throw err;
    }
  }

  async readTree(treeOid: string): Promise<TreeEntry[]> {
    return parseTree((await this.object(treeOid, "tree")).body);
  }

  async listTree(treeOid: string): Promise<TreeEntry[]> {
    const out = await this.git(["ls-tree", "-r", "-t", "-z", treeOid]);
    return splitZ(out.stdout).map(parseLsTree);
  }

  async readBlobs(oids: string[]): Promise<Map<string, Buffer>> {
    const result = new Map<string, Buffer>();
    const bodies = await Promise.all(oids.map(oid => this.object(oid, "blob")));
    oids.forEach((oid, i) => result.set(oid, bodies[i].body));
    return result;
  }

  async readCommit(oid: string): Promise<CommitInfo> {
    return { oid, ...parseCommit((await this.object(oid, "commit")).body.toString("utf8")) };
  }

  async log(oid: string, max: number): Promise<CommitInfo[]> {
    const format = "%H%x1f%T%x1f%P%x1f%an%x1f%ae%x1f%at %ad%x1f%cn%x1f%ce%x1f%ct %cd%x1f%B%x1e";
    const out = await this.git([
      "log",
      "--first-parent",
      `--max-count=${max}`,
      "--date=format:%z",
      `--format=${format}`,
      oid,
    ]);
    return out.stdout
      .toString("utf8")
      .split("\x1e")
      .map(r => r.replace(/^\n/, ""))
      .filter(r => r !== "")
      .map(record => {
        const [h, tree, parents, an, ae, adate, cn, ce, cdate, message] = record.split("\x1f");
        return {
          oid: h,
          tree,
          parents: parents === "" ? [] : parents.split(" "),
          message,
          author: parseSignature(`${an} <${ae}> ${adate}`),
          committer: parseSignature(`${cn} <${ce}> ${cdate}`),
        };
      });
  }

  // Objects are written as loose objects directly: no process per blob, tree or commit.
  writeBlobs(contents: Buffer[]): Promise<string[]> {
    return Promise.all(contents.map(c => writeLooseObject(this.opts.gitdir, "blob", c)));
  }

  writeTree(entries: TreeEntry[]): Promise<string> {
    return writeLooseObject(this.opts.gitdir, "tree", encodeTree(entries));
  }

  writeCommit(spec: CommitSpec): Promise<string> {
    return writeLooseObject(this.opts.gitdir, "commit", encodeCommit(spec));
  }

  close(): void {
    this.reader.close();
  }

  private async object(oid: string, type: string) {
    const obj = await this.reader.read(oid);
    if (obj.type !== type)
      throw new GitStoreError(
        "Transport",
        `git object ${oid} is a ${obj.type}, expected a ${type}`,
      );
    return obj;
  }

  private git(
    args: string[],
    o: { input?: Buffer; env?: NodeJS.ProcessEnv; network?: boolean; bare?: boolean } = {},
  ): Promise<RunResult> {
    const full = o.bare === false ? args : [`--git-dir=${this.opts.gitdir}`, ...args];
    const env = { ...this.env, ...o.env };
    return new Promise((resolve, reject) => {
      const child = spawn("git", full, { env, stdio: ["pipe", "pipe", "pipe"] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (d: Buffer) => out.push(d));
      child.stderr.on("data", (d: Buffer) => err.push(d));
      child.on("error", e =>
        reject(new GitStoreError("Transport", `cannot run git: ${e.message}`)),
      );
      child.on("close", code => {
        const stderr = Buffer.concat(err).toString("utf8");
        if (code === 0) return resolve({ stdout: Buffer.concat(out), stderr });
        reject(
          this.failure(args[0], stderr, Buffer.concat(out).toString("utf8"), o.network === true),
        );
      });
      child.stdin.on("error", () => undefined);
      child.stdin.end(o.input ?? Buffer.alloc(0));
    });
  }

  private failure(sub: string, stderr: string, stdout: string, network: boolean): GitStoreError {
    const detail = scrubSecrets(
      `${stderr}\n${stdout}`.trim().replace(/\s*\n\s*/g, "; "),
      this.secrets,
    );
    if (
      network &&
      /\b401\b|Authentication failed|could not read Username|terminal prompts disabled|\b403\b/.test(
        stderr,
      )
    ) {
      return new GitStoreError(
        "Auth",
        `authentication to ${displayUrl(this.opts.url)} failed (git ${sub}); check the repository credentials`,
      );
    }
    return new GitStoreError(
      "Transport",
      `git ${sub} ${network ? `(${displayUrl(this.opts.url)}) ` : ""}failed: ${detail}`,
    );
  }
}

function gitEnv(authHeader: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
  for (const k of [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_OBJECT_DIRECTORY",
  ])
    delete env[k];
  const config: [string, string][] = [["credential.helper", ""]];
  if (authHeader !== undefined) config.push(["http.extraHeader", `Authorization: ${authHeader}`]);
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

function splitZ(buf: Buffer): string[] {
  return buf
    .toString("utf8")
    .split("\0")
    .filter(s => s !== "");
}

function parseLsTree(line: string): TreeEntry {
  const tab = line.indexOf("\t");
  const [mode, type, oid] = line.slice(0, tab).split(" ");
  return { mode, type: type as TreeEntry["type"], oid, path: line.slice(tab + 1) };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
