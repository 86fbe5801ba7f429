import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GitContentStore } from "../../../lib/git";
import { gitNetworkFromEnv } from "../../../lib/git/network";
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

it("fetches past the ref lock file a killed git left (cli)", async () => {
  const url = await fx.repo("locked");
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
  const s = track(
    new GitContentStore(
      { url },
      { cacheRoot: root, client: "cli", network: gitNetworkFromEnv(process.env) },
    ),
  );
  await s.open();
  await writeFile(join(s.cacheDir, "refs/remotes/origin/main.lock"), "");
  const second = await commit("p/two.yaml");
  expect(await s.open()).toBe(second);
});
