// A repository laid out the way the reference implementation (porch) writes it, built with plain
// git commands, must be read back correctly by the store (both clients).
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { GitContentStore, type PackageRevisionInfo } from "../../../lib/git";
import {
  CLIENTS,
  git,
  kptfile,
  lsRemote,
  startFixture,
  track,
  workClone,
  writeFiles,
  type Fixture,
} from "./helpers";

jest.setTimeout(60_000);

let fx: Fixture;
let url: string;

const annotation = (pkg: string, ws: string | undefined, revision: string, task?: object) =>
  `kpt:${JSON.stringify({ package: pkg, ...(ws ? { workspaceName: ws } : {}), revision, ...(task ? { task } : {}) })}`;

/** Commits the work tree's current index on top of `parents` with an exact message; returns the oid. */
async function commitTree(work: string, message: string, ...parents: string[]): Promise<string> {
  await git(work, "add", "-A");
  const tree = (await git(work, "write-tree")).trim();
  const args = ["commit-tree", tree, ...parents.flatMap(p => ["-p", p]), "-m", message];
  return (await git(work, ...args)).trim();
}

async function layOutReferenceRepository(): Promise<string> {
  const repo = await fx.repo("reference");
  const work = await workClone(fx, repo);
  await writeFiles(work, { "README.md": "Created by porch" });
  const init = await commitTree(work, "Initial commit: Creating main branch");
  await git(work, "reset", "-q", "--hard", init);

  // pkg: draft ws-one, approved as pkg/v1 (merge commit with the annotation), as porch does.
  await writeFiles(work, { "pkg/Kptfile": kptfile("pkg"), "pkg/cm.yaml": "v: 1\n" });
  const draftOne = await commitTree(
    work,
    `Creating new empty revision\n\n\n${annotation("pkg", "ws-one", "0", { type: "init", init: {} })}\n`,
    init,
  );
  const approve1 = await commitTree(
    work,
    `Approving package revision pkg/1\n\n${annotation("pkg", "ws-one", "1")}\n`,
    init,
    draftOne,
  );
  // A manual edit on main, tagged by hand with an annotated tag (no kpt annotation).
  await writeFiles(work, { "pkg/cm.yaml": "v: 2\n" });
  const manual = await commitTree(work, "manual v2", approve1);
  // A nested package published under catalog/, and a legacy annotation without workspaceName.
  await writeFiles(work, {
    "catalog/nested/app/Kptfile": kptfile("app"),
    "catalog/nested/app/sub/Kptfile": kptfile("sub"),
  });
  const nested = await commitTree(
    work,
    `Approving package revision catalog/nested/app/1\n\n${annotation("catalog/nested/app", "nested-ws", "1")}\n`,
    manual,
  );
  await writeFiles(work, { "legacy/Kptfile": kptfile("legacy") });
  const legacy = await commitTree(
    work,
    `Intermediate commit: eval\n\n${annotation("legacy", undefined, "v3")}\n`,
    nested,
  );
  await git(work, "reset", "-q", "--hard", nested);
  // Open drafts: one Draft, one Proposed, both branched from main.
  await writeFiles(work, { "pkg/cm.yaml": "v: draft\n" });
  const draft = await commitTree(
    work,
    `Creating new revision by copying previous revision\n\n\n${annotation("pkg", "ws-draft", "0")}\n`,
    nested,
  );
  await writeFiles(work, { "pkg/cm.yaml": "v: proposed\n" });
  const proposed = await commitTree(
    work,
    `Creating new revision by cloning\n\n\n${annotation("pkg", "ws-prop", "0")}\n`,
    nested,
  );

  const refs: [string, string][] = [
    [nested, "refs/heads/main"],
    [approve1, "refs/tags/pkg/v1"],
    [approve1, "refs/heads/deletionProposed/pkg/v1"],
    [draft, "refs/heads/drafts/pkg/ws-draft"],
    [proposed, "refs/heads/proposed/pkg/ws-prop"],
    [nested, "refs/tags/catalog/nested/app/v1"],
    [legacy, "refs/tags/legacy/v3"],
    [manual, "refs/tags/pkg/stable"],
    [init, "refs/tags/v1.0"], // release tag: no package path
    [init, "refs/tags/docs/v1"], // no Kptfile under docs/
  ];
  await git(work, "tag", "-a", "pkg/v2", "-m", "some comment", manual);
  await git(
    work,
    "push",
    "-q",
    "origin",
    ...refs.map(([oid, ref]) => `${oid}:${ref}`),
    "refs/tags/pkg/v2",
  );
  return repo;
}

beforeAll(async () => {
  fx = await startFixture();
  url = await layOutReferenceRepository();
});
afterAll(() => fx.close());

const row = (r: PackageRevisionInfo) => [
  r.packageName,
  r.workspaceName,
  r.lifecycle,
  r.revision,
  r.ref,
];

describe.each(CLIENTS)("a reference-written repository read with the %s client", client => {
  it("lists every revision the reference would", async () => {
    const store = track(new GitContentStore({ url }, { cacheRoot: await fx.cacheRoot(), client }));
    const listed = await store.listPackageRevisions();
    expect(listed.map(row)).toEqual([
      ["catalog/nested/app", "main", "Published", -1, "refs/heads/main"],
      ["catalog/nested/app", "nested-ws", "Published", 1, "refs/tags/catalog/nested/app/v1"],
      ["legacy", "v3", "Published", 3, "refs/tags/legacy/v3"],
      ["pkg", "main", "Published", -1, "refs/heads/main"],
      ["pkg", "stable", "Published", -1, "refs/tags/pkg/stable"],
      ["pkg", "ws-draft", "Draft", 0, "refs/heads/drafts/pkg/ws-draft"],
      ["pkg", "ws-prop", "Proposed", 0, "refs/heads/proposed/pkg/ws-prop"],
      ["pkg", "ws-one", "DeletionProposed", 1, "refs/tags/pkg/v1"],
      ["pkg", "v2", "Published", 2, "refs/tags/pkg/v2"],
    ]);
    const byWs = Object.fromEntries(listed.map(r => [`${r.packageName}/${r.workspaceName}`, r]));
    expect(byWs["pkg/v2"]).toMatchObject({
      publishedBy: "author@example.com",
      commit: (await lsRemote(url)).get("refs/tags/pkg/v2^{}"),
    });
    expect(byWs["pkg/main"].publishedBy).toBe("author@example.com"); // the approval commit found in history
    expect(byWs["pkg/ws-draft"].publishedAt).toBeUndefined();

    expect(
      (await store.getPackageContent({ packageName: "pkg", workspaceName: "v2" })).files,
    ).toEqual({ Kptfile: kptfile("pkg"), "cm.yaml": "v: 2\n" });
    expect(
      (await store.getPackageContent({ packageName: "pkg", workspaceName: "ws-prop" })).files[
        "cm.yaml"
      ],
    ).toBe("v: proposed\n");
    expect(
      Object.keys(
        (
          await store.getPackageContent({
            packageName: "catalog/nested/app",
            workspaceName: "nested-ws",
          })
        ).files,
      ),
    ).toEqual(["Kptfile", "sub/Kptfile"]);
  });

  it("scopes to the repository directory and continues the reference's numbering", async () => {
    const scoped = track(
      new GitContentStore(
        { url, directory: "catalog" },
        { cacheRoot: await fx.cacheRoot(), client },
      ),
    );
    expect(
      (await scoped.listPackageRevisions()).map(
        r => `${r.packageName}/${r.workspaceName}:${r.revision}`,
      ),
    ).toEqual(["nested/app/main:-1", "nested/app/nested-ws:1"]);
  });
});

describe("publishing onto the reference-written repository", () => {
  it("numbers after the highest existing tag and stays fetchable with kpt pkg get", async () => {
    const store = track(
      new GitContentStore({ url }, { cacheRoot: await fx.cacheRoot(), client: "cli" }),
    );
    const published = await store.updateLifecycle(
      { packageName: "pkg", workspaceName: "ws-prop" },
      "Published",
    );
    expect(published).toMatchObject({
      revision: 3,
      ref: "refs/tags/pkg/v3",
      lifecycle: "Published",
    });
    expect((await lsRemote(url)).has("refs/heads/proposed/pkg/ws-prop")).toBe(false);

    const out = await mkdtemp(join(fx.tmp, "kpt-get-"));
    await promisify(execFile)("kpt", ["pkg", "get", `${url}/pkg@pkg/v3`, join(out, "pkg")], {
      env: { ...process.env, HOME: fx.tmp },
    });
    const got = (await readdir(join(out, "pkg"))).sort();
    expect(got).toEqual(["Kptfile", "cm.yaml"]);
    expect(await readFile(join(out, "pkg", "cm.yaml"), "utf8")).toBe("v: proposed\n");
    expect(await readFile(join(out, "pkg", "Kptfile"), "utf8")).toContain("ref: pkg/v3");
  });
});
