import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GitContentStore } from "../../../lib/git";
import { GC_EVERY_FETCHES } from "../../../lib/git/cli-client";
import type { GitNetwork } from "../../../lib/git/network";
import { git, startFixture, track, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

// The `git gc --auto` after a CLI fetch is bounded by the total timeout, as the fetch is: a
// repack of a large cache (here a pre-auto-gc hook that never ends) would hold the cache's lock
// for good. Before, it ran with no bound and this test hung.
let fx: Fixture;
let url: string;
beforeAll(async () => {
  fx = await startFixture();
  url = await fx.repo("gc");
  const work = await workClone(fx, url);
  await writeFiles(work, { "README.md": "gc\n" });
  await git(work, "add", ".");
  await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
  await git(work, "push", "-q", "origin", "HEAD:main");
});
afterAll(() => fx.close());

describe("a CLI fetch's housekeeping", () => {
  it("is ended at the total timeout", async () => {
    const network: GitNetwork = {
      policy: { http: "loopback", file: false },
      timeouts: { connectMs: 2_000, idleMs: 5_000, totalMs: 5_000 },
    };
    const cacheRoot = await fx.cacheRoot();
    const open = () => track(new GitContentStore({ url }, { cacheRoot, client: "cli", network }));
    const first = open();
    await first.open();
    first.close();
    // A client's first fetch asks for housekeeping (later ones every GC_EVERY_FETCHES).
    const store = open();
    // Every gc --auto now has work (two loose objects are past gc.auto=1) and a hook that hangs.
    await git(store.cacheDir, "config", "gc.auto", "1");
    await git(store.cacheDir, "config", "core.hooksPath", join(store.cacheDir, "hooks"));
    const hook = join(store.cacheDir, "hooks", "pre-auto-gc");
    await writeFile(hook, "#!/bin/sh\nexec sleep 600\n");
    await chmod(hook, 0o755);
    // gc --auto estimates loose objects from objects/17 alone; the hook runs before it reads any.
    await writeFiles(store.cacheDir, {
      [`objects/17/${"0".repeat(38)}`]: "",
      [`objects/17/${"1".repeat(38)}`]: "",
    });
    await expect(store.listPackageRevisions()).rejects.toMatchObject({
      code: "Timeout",
      message: expect.stringMatching(
        /^git gc on the cache of .* took longer than 5000 ms \(PORCH_PEPR_GIT_TOTAL_TIMEOUT_MS\)$/,
      ),
    });
  });

  it("is asked for at a client's first fetch and every GC_EVERY_FETCHES fetches after", async () => {
    const cacheRoot = await fx.cacheRoot();
    const store = track(new GitContentStore({ url }, { cacheRoot, client: "cli" }));
    await store.open();
    // From now on every gc --auto leaves a line here (the hook's non-zero exit skips the gc).
    const marks = join(store.cacheDir, "gc-asked");
    await git(store.cacheDir, "config", "core.hooksPath", join(store.cacheDir, "hooks"));
    const hook = join(store.cacheDir, "hooks", "pre-auto-gc");
    await writeFile(hook, `#!/bin/sh\necho asked >> ${marks}\nexit 1\n`);
    await chmod(hook, 0o755);
    // gc --auto runs its hook only when it has work: two loose objects are past gc.auto=1.
    await git(store.cacheDir, "config", "gc.auto", "1");
    await writeFiles(store.cacheDir, {
      [`objects/17/${"0".repeat(38)}`]: "",
      [`objects/17/${"1".repeat(38)}`]: "",
    });
    const asked = async () =>
      (await readFile(marks, "utf8").catch(() => "")).split("\n").filter(Boolean).length;
    for (let i = 1; i < GC_EVERY_FETCHES; i++) await store.open();
    expect(await asked()).toBe(0);
    await store.open();
    expect(await asked()).toBe(1);
    expect(GC_EVERY_FETCHES).toBeGreaterThan(1);
  });
});
