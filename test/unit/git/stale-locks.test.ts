import { chmod, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { GitContentStore } from "../../../lib/git";
import { gitNetworkFromEnv, type GitNetwork } from "../../../lib/git/network";
import { git, startFixture, track, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

// A git process ended by SIGKILL as it moves a ref (the per-fetch bound's kill, or a watcher
// killed mid-fetch) leaves the ref's lock file in the cache; every later fetch then failed
// "cannot lock ref" for as long as the cache lived. Only the git CLI writes such files.
let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

/** A repository with one package, a commit function, and a CLI store on a cache of its own. */
async function lockedRepository(name: string, network = gitNetworkFromEnv(process.env)) {
  const url = await fx.repo(name);
  const work = await workClone(fx, url);
  const commit = async (file: string) => {
    await writeFiles(work, {
      "p/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\n",
      [file]: "a: 1\n",
    });
    await git(work, "add", ".");
    await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", file);
    await git(work, "push", "-q", "origin", "HEAD:main");
    return (await git(work, "rev-parse", "HEAD")).trim();
  };
  await commit("p/one.yaml");
  const root = await fx.cacheRoot();
  const open = (net: GitNetwork = network) =>
    track(new GitContentStore({ url }, { cacheRoot: root, client: "cli", network: net }));
  return { commit, open };
}

it("fetches past the ref lock file a killed watcher left (cli, the next process)", async () => {
  const { commit, open } = await lockedRepository("locked");
  const s = open();
  await s.open();
  await writeFile(join(s.cacheDir, "refs/remotes/origin/main.lock"), "");
  const second = await commit("p/two.yaml");
  // The process that left it is gone; the next one's store, on the same cache, starts clean.
  expect(await open().open()).toBe(second);
});

it("fetches past the lock files a git killed in this process left (cli)", async () => {
  // A total timeout of 2 s ends a gc --auto whose hook hangs: git is killed by a signal.
  const network: GitNetwork = {
    policy: { http: "loopback", file: false },
    timeouts: { connectMs: 2_000, idleMs: 2_000, totalMs: 2_000 },
  };
  const { commit, open } = await lockedRepository("killed", network);
  const first = open();
  await first.open();
  first.close();
  await git(first.cacheDir, "config", "gc.auto", "1");
  await git(first.cacheDir, "config", "core.hooksPath", join(first.cacheDir, "hooks"));
  const hook = join(first.cacheDir, "hooks", "pre-auto-gc");
  await writeFiles(first.cacheDir, {
    "hooks/pre-auto-gc": "#!/bin/sh\nexec sleep 600\n",
    [`objects/17/${"0".repeat(38)}`]: "",
    [`objects/17/${"1".repeat(38)}`]: "",
  });
  await chmod(hook, 0o755);
  // A client's first fetch asks for housekeeping, which the timeout ends with a signal.
  const s = open();
  await commit("p/two.yaml");
  await expect(s.open()).rejects.toMatchObject({ code: "Timeout" });
  await rm(hook);
  await rm(join(s.cacheDir, "objects/17"), { recursive: true });
  await git(s.cacheDir, "config", "--unset", "gc.auto");
  await writeFile(join(s.cacheDir, "refs/remotes/origin/main.lock"), "");
  const third = await commit("p/three.yaml");
  expect(await s.open()).toBe(third);
});

it("does not walk the refs for lock files before every fetch: only after a kill (cli)", async () => {
  const { commit, open } = await lockedRepository("unkilled");
  const s = open();
  await s.open();
  // Not a ref any fetch moves: only a walk of every ref directory would remove it.
  const bystander = join(s.cacheDir, "refs/remotes/origin/elsewhere.lock");
  await writeFile(bystander, "");
  await commit("p/two.yaml");
  await s.open();
  expect(existsSync(bystander)).toBe(true);
});
