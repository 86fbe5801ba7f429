// Shared fixtures for the git store tests: a real git smart-HTTP server on temporary bare
// repositories, and plain-git helpers to lay out or inspect repositories independently of the store.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { startGitServer, type GitServer, type GitServerOptions } from "../../../hack/git-server";

const exec = promisify(execFile);

export const CLIENTS = ["cli", "isomorphic"] as const;

/** Deterministic identity for commits made with plain git in tests. */
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Test Author",
  GIT_AUTHOR_EMAIL: "author@example.com",
  GIT_COMMITTER_NAME: "Test Author",
  GIT_COMMITTER_EMAIL: "author@example.com",
  GIT_TERMINAL_PROMPT: "0",
  GIT_CONFIG_NOSYSTEM: "1",
};

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await exec("git", args, { cwd, env: GIT_ENV, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

const opened: { close(): void }[] = [];

/** Registers a store so the fixture closes it (its CLI reader process) at the end. */
export function track<T extends { close(): void }>(store: T): T {
  opened.push(store);
  return store;
}

export interface Fixture {
  tmp: string;
  server: GitServer;
  /** A fresh empty bare repository; returns its URL. */
  repo(name?: string, initialBranch?: string): Promise<string>;
  /** A fresh cache root for one store instance. */
  cacheRoot(): Promise<string>;
  close(): Promise<void>;
}

let counter = 0;

export async function startFixture(opts: Partial<GitServerOptions> = {}): Promise<Fixture> {
  const tmp = await mkdtemp(join(tmpdir(), "porch-git-test-"));
  const server = await startGitServer({ root: join(tmp, "served"), ...opts });
  return {
    tmp,
    server,
    repo: async (name = `repo${++counter}`, initialBranch = "main") =>
      (await server.createBareRepo(name, { initialBranch })).url,
    cacheRoot: async () => {
      const dir = join(tmp, `cache${++counter}`);
      await mkdir(dir, { recursive: true });
      return dir;
    },
    close: async () => {
      for (const store of opened.splice(0)) store.close();
      await server.close();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** Remote refs as `git ls-remote` reports them (ref → oid; annotated tags also as `<ref>^{}`). */
export async function lsRemote(url: string): Promise<Map<string, string>> {
  const out = await exec("git", ["ls-remote", url], { env: GIT_ENV });
  const refs = new Map<string, string>();
  for (const line of out.stdout.trim().split("\n")) {
    const [oid, ref] = line.split("\t");
    if (ref) refs.set(ref, oid);
  }
  return refs;
}

/** A work clone of `url` (empty clone allowed). */
export async function workClone(fx: Fixture, url: string): Promise<string> {
  const dir = join(fx.tmp, `work${++counter}`);
  await git(fx.tmp, "clone", "--quiet", url, dir);
  return dir;
}

export async function writeFiles(
  dir: string,
  files: Record<string, string | Buffer>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** Files of a directory at a remote ref, read with plain git (independent of the store). */
export async function filesAt(
  fx: Fixture,
  url: string,
  ref: string,
  dir: string,
): Promise<Record<string, string>> {
  const work = await workClone(fx, url);
  await git(work, "fetch", "--quiet", "origin", `+${ref}:refs/check`);
  const names = (await git(work, "ls-tree", "-r", "--name-only", "refs/check", "--", dir))
    .split("\n")
    .filter(n => n);
  const files: Record<string, string> = {};
  for (const name of names)
    files[name.slice(dir.length + 1)] = await git(work, "show", `refs/check:${name}`);
  return files;
}

export function kptfile(name: string, extra = ""): string {
  return `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${extra}`;
}

export function pkgFiles(name: string, value = "1"): Record<string, string> {
  return {
    Kptfile: kptfile(name),
    "configmap.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: "${value}"\n`,
  };
}
