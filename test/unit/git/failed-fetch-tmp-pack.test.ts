import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { GitContentStore } from "../../../lib/git";
import type { GitNetwork } from "../../../lib/git/network";
import { startCuttingProxy, type HostileServer } from "../../support/hostile-servers";
import { git, startFixture, track, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

// A CLI fetch that fails (here an early EOF) leaves the pack git was writing as
// objects/pack/tmp_pack_*: up to the per-fetch limit each retry, and none of it measured by the
// cache disk bound. The fetch removes what it left; the packs a good fetch wrote stay.
let fx: Fixture;
let proxy: HostileServer;
let url: string;
beforeAll(async () => {
  fx = await startFixture();
  url = await fx.repo("big");
  const work = await workClone(fx, url);
  await writeFiles(work, { "README.md": "big\n" });
  await git(work, "add", ".");
  await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
  await git(work, "push", "-q", "origin", "HEAD:main");
  const repoUrl = new URL(url);
  proxy = await startCuttingProxy(repoUrl.origin, 256 * 1024);
  url = `${proxy.url}${repoUrl.pathname}`;
  // Incompressible, so the pack is larger than what the proxy lets through.
  await writeFiles(work, { "blob.bin": randomBytes(2 * 1024 * 1024).toString("base64") });
  await git(work, "add", ".");
  await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "two");
  await git(work, "push", "-q", "origin", "HEAD:main");
});
afterAll(async () => {
  await proxy.close();
  await fx.close();
});

const network: GitNetwork = {
  policy: { http: "loopback", file: false },
  timeouts: { connectMs: 2_000, idleMs: 5_000, totalMs: 20_000 },
};

describe("a CLI fetch that fails with its pack half written", () => {
  it("removes the temporary pack it left", async () => {
    const store = track(
      new GitContentStore({ url }, { cacheRoot: await fx.cacheRoot(), client: "cli", network }),
    );
    await expect(store.open()).rejects.toMatchObject({ code: expect.any(String) });
    const packs = await readdir(join(store.cacheDir, "objects", "pack"));
    expect(packs.filter(n => n.startsWith("tmp_"))).toEqual([]);
  });
});
