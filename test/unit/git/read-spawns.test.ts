import childProcess from "node:child_process";
import { GitContentStore } from "../../../lib/git";
import { CliGitClient } from "../../../lib/git/cli-client";
import { IsoGitClient } from "../../../lib/git/iso-client";
import { PackageMemo } from "../../../lib/git/package-memo";
import { CLIENTS, git, pkgFiles, startFixture, track, workClone, writeFiles } from "./helpers";
import type { Fixture } from "./helpers";

jest.setTimeout(60_000);

// A package read costs what it reads: objects come through the one long-lived cat-file reader
// (or isomorphic-git's packs), never a process per read. Reading 100 packages spawned a
// `git ls-tree` each before.
let fx: Fixture;
let url: string;
beforeAll(async () => {
  fx = await startFixture();
  url = await fx.repo("spawns");
  const work = await workClone(fx, url);
  const files: Record<string, string> = {};
  for (const name of ["a", "b", "nested/c"])
    for (const [path, text] of Object.entries(pkgFiles(name))) files[`${name}/${path}`] = text;
  files["b/sub/deep.yaml"] = "kind: Deep\n";
  await writeFiles(work, files);
  await git(work, "add", ".");
  await git(work, "commit", "-qm", "packages");
  for (const name of ["a", "b", "nested/c"]) await git(work, "tag", `${name}/v1`);
  await git(work, "push", "-q", "origin", "HEAD:main", "--tags");
});
afterAll(() => fx.close());

describe.each(CLIENTS)("package reads (%s)", client => {
  it("spawn no process once the repository is fetched", async () => {
    const store = track(
      new GitContentStore(
        { url },
        { cacheRoot: await fx.cacheRoot(), client, readFreshnessMs: 3_600_000 },
      ),
    );
    await store.getPackageContent({ packageName: "a", workspaceName: "v1" });
    const spawn = jest.spyOn(childProcess, "spawn");
    let b, c;
    try {
      b = await store.getPackageContent({ packageName: "b", workspaceName: "v1" });
      c = await store.getPackageContent({ packageName: "nested/c", workspaceName: "v1" });
      expect(spawn.mock.calls.map(([, args]) => args?.join(" "))).toEqual([]);
    } finally {
      spawn.mockRestore();
    }
    expect(Object.keys(b.files).sort()).toEqual(["Kptfile", "configmap.yaml", "sub/deep.yaml"]);
    expect(b.files["sub/deep.yaml"]).toBe("kind: Deep\n");
    expect(c.files["configmap.yaml"]).toContain("name: nested/c");
    expect((await store.readAtRef("main", "nested/c")).files).toEqual(c.files);
  });

  it("read a package's files from git once, however often it is read", async () => {
    const store = track(
      new GitContentStore(
        { url },
        {
          cacheRoot: await fx.cacheRoot(),
          client,
          readFreshnessMs: 3_600_000,
          packageMemo: new PackageMemo(1024 * 1024),
        },
      ),
    );
    const key = { packageName: "b", workspaceName: "v1" };
    const first = await store.getPackageContent(key);
    const proto = client === "cli" ? CliGitClient.prototype : IsoGitClient.prototype;
    const blobs = jest.spyOn(proto, "readBlobs");
    const trees = jest.spyOn(proto, "readTree");
    try {
      for (let i = 0; i < 20; i++) {
        const again = await store.getPackageContent(key);
        expect(again.files).toEqual(first.files);
        again.files["configmap.yaml"] = "a reader's own change";
      }
      expect([blobs.mock.calls.length, trees.mock.calls.length]).toEqual([0, 0]);
    } finally {
      blobs.mockRestore();
      trees.mockRestore();
    }
  });
});
