// Batched pushes against the real git server, both clients: writers that arrive together share
// one push (counted as the receive-pack requests the server gets), a ref the server refuses is
// retried alone while the others land, and publishes of several packages share their pushes.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GitContentStore } from "../../../lib/git";
import {
  CLIENTS,
  filesAt,
  git,
  writeFiles,
  lsRemote,
  pkgFiles,
  startFixture,
  track,
  workClone,
  type Fixture,
} from "./helpers";

jest.setTimeout(120_000);

/** Refs named by each receive-pack request, in order (from its pkt-line commands). */
const pushes: string[][] = [];
/** Fetches begun (each asks for the upload-pack ref advertisement first). */
let fetches = 0;
let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture({
    onRequest: ({ method, path, head }) => {
      if (method === "POST" && path.endsWith("/git-receive-pack")) pushes.push(commandRefs(head));
      if (method === "GET" && path.includes("service=git-upload-pack")) fetches++;
    },
  });
});
afterAll(() => fx.close());

/** The ref names of a receive-pack request's commands ("<old> <new> <ref>" pkt-lines). */
function commandRefs(body: Buffer): string[] {
  const refs: string[] = [];
  for (let at = 0; at + 4 <= body.length; ) {
    const len = parseInt(body.subarray(at, at + 4).toString("ascii"), 16);
    if (!len) break;
    const line = body.subarray(at + 4, at + len).toString("utf8");
    refs.push(line.split("\0")[0].trim().split(" ")[2]);
    at += len;
  }
  return refs;
}

/**
 * An update hook (one run per ref) that, the first time it sees `ref`, plays another writer: it
 * commits on that branch before receive-pack moves it, so that ref's old-value check fails.
 */
async function raceOnceOn(url: string, ref: string): Promise<void> {
  const repoDir = join(fx.server.root, new URL(url).pathname.slice(1));
  const hook = `#!/bin/sh
[ "$1" = "${ref}" ] || exit 0
[ -f "$GIT_DIR/raced" ] && exit 0
touch "$GIT_DIR/raced"
unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
set -e
export GIT_AUTHOR_NAME=other GIT_AUTHOR_EMAIL=other@example.com GIT_COMMITTER_NAME=other GIT_COMMITTER_EMAIL=other@example.com
c=$(git commit-tree "$2^{tree}" -p "$2" -m "concurrent writer")
git update-ref "$1" "$c"
`;
  await writeFile(join(repoDir, "hooks", "update"), hook, { mode: 0o755 });
}

const PACKAGES = ["p0", "p1", "p2", "p3", "p4", "p5"];

describe.each(CLIENTS)("batched pushes with the %s client", client => {
  async function store() {
    const url = await fx.repo();
    const s = track(
      new GitContentStore({ url, createBranch: true }, { cacheRoot: await fx.cacheRoot(), client }),
    );
    await s.open();
    pushes.length = 0;
    return { url, s };
  }

  it("pushes drafts that close together in one push, a refspec each", async () => {
    const { url, s } = await store();
    const drafts = await Promise.all(
      PACKAGES.map(p => s.createNewDraft({ packageName: p, workspaceName: "ws" })),
    );
    for (const d of drafts) await d.updateResources(pkgFiles(d.key.packageName), "create");
    const infos = await Promise.all(drafts.map(d => d.closeDraft()));
    expect(pushes).toEqual([PACKAGES.map(p => `refs/heads/drafts/${p}/ws`)]);
    const remote = await lsRemote(url);
    for (const info of infos) expect(remote.get(info.ref)).toBe(info.commit);
  });

  it("retries a refused ref alone, on the branch's new tip, while the others land", async () => {
    const { url, s } = await store();
    const first = await Promise.all(
      PACKAGES.map(p => s.createNewDraft({ packageName: p, workspaceName: "ws" })),
    );
    for (const d of first) await d.updateResources(pkgFiles(d.key.packageName, "1"), "one");
    await Promise.all(first.map(d => d.closeDraft()));
    await raceOnceOn(url, "refs/heads/drafts/p3/ws");
    pushes.length = 0;

    const edits = await Promise.all(
      PACKAGES.map(p => s.createDraftFromExisting({ packageName: p, workspaceName: "ws" })),
    );
    for (const d of edits) await d.updateResources(pkgFiles(d.key.packageName, "2"), "two");
    const infos = await Promise.all(edits.map(d => d.closeDraft()));

    expect(pushes).toEqual([
      PACKAGES.map(p => `refs/heads/drafts/${p}/ws`),
      ["refs/heads/drafts/p3/ws"],
    ]);
    const remote = await lsRemote(url);
    for (const info of infos) expect(remote.get(info.ref)).toBe(info.commit);
    for (const p of PACKAGES)
      expect(await filesAt(fx, url, `refs/heads/drafts/${p}/ws`, p)).toEqual(pkgFiles(p, "2"));
    // The retried edit was replayed on the other writer's commit, which stays in its history.
    const work = await workClone(fx, url);
    const subjects = (await git(work, "log", "--format=%s", "origin/drafts/p3/ws"))
      .trim()
      .split("\n");
    expect(subjects.slice(0, 3)).toEqual(["two", "concurrent writer", "one"]);
  });

  it("publishes several packages in two pushes: their tags and the branch together, then their proposals", async () => {
    const { url, s } = await store();
    const drafts = await Promise.all(
      PACKAGES.map(p => s.createNewDraft({ packageName: p, workspaceName: "ws" })),
    );
    for (const d of drafts) await d.updateResources(pkgFiles(d.key.packageName), "create");
    await Promise.all(drafts.map(d => d.closeDraft()));
    await Promise.all(
      PACKAGES.map(p => s.updateLifecycle({ packageName: p, workspaceName: "ws" }, "Proposed")),
    );
    pushes.length = 0;

    const published = await Promise.all(
      PACKAGES.map(p => s.updateLifecycle({ packageName: p, workspaceName: "ws" }, "Published")),
    );
    expect(published.map(r => `${r.ref}:${r.lifecycle}`)).toEqual(
      PACKAGES.map(p => `refs/tags/${p}/v1:Published`),
    );
    // The tags with the branch moved once (the six approval commits chained), in one atomic
    // push; then the proposals. (The CLI orders its commands branches first.)
    expect(pushes.map(refs => [...refs].sort())).toEqual([
      ["refs/heads/main", ...PACKAGES.map(p => `refs/tags/${p}/v1`)],
      PACKAGES.map(p => `refs/heads/proposed/${p}/ws`),
    ]);
    const remote = await lsRemote(url);
    expect([...remote.keys()].filter(r => r.includes("proposed") || r.includes("drafts"))).toEqual(
      [],
    );
    const work = await workClone(fx, url);
    expect((await git(work, "ls-tree", "--name-only", "origin/main")).trim().split("\n")).toEqual([
      "README.md",
      ...PACKAGES,
    ]);
    // Each tag is its package's approval commit, and all of them are on the branch.
    const approvals = (await git(work, "log", "--first-parent", "--format=%H %s", "origin/main"))
      .split("\n")
      .filter(l => l.includes("Approving"));
    expect(approvals).toHaveLength(PACKAGES.length);
    for (const r of published) expect(approvals.map(l => l.split(" ")[0])).toContain(r.commit);
  });

  it("takes a push's ref advertisement as a fetch while nothing else moved", async () => {
    const url = await fx.repo();
    let now = Date.now();
    const clock = jest.spyOn(Date, "now").mockImplementation(() => now);
    try {
      const s = track(
        new GitContentStore(
          { url, createBranch: true },
          { cacheRoot: await fx.cacheRoot(), client, readFreshnessMs: 60_000 },
        ),
      );
      await s.open();
      now += 50_000;
      const draft = await s.createNewDraft({ packageName: "a", workspaceName: "ws" });
      await draft.updateResources(pkgFiles("a"), "create");
      await draft.closeDraft();
      fetches = 0;
      // 100 s after the last fetch, 50 s after the push: the push's view is fresh enough.
      now += 50_000;
      const listed = await s.listPackageRevisions();
      expect(fetches).toBe(0);
      expect(listed.map(r => r.ref)).toContain("refs/heads/drafts/a/ws");
    } finally {
      clock.mockRestore();
    }
  });

  it("fetches after a push whose ref advertisement shows another writer's ref", async () => {
    const url = await fx.repo();
    const s = track(
      new GitContentStore(
        { url, createBranch: true },
        { cacheRoot: await fx.cacheRoot(), client, readFreshnessMs: 600_000 },
      ),
    );
    await s.open();
    // Another writer adds a draft, unseen: the store's refs are fresh for ten minutes.
    const work = await workClone(fx, url);
    await writeFiles(join(work, "other"), pkgFiles("other"));
    await git(work, "add", ".");
    await git(work, "commit", "-q", "-m", "other");
    await git(work, "push", "-q", "origin", "HEAD:refs/heads/drafts/other/ws");
    const draft = await s.createNewDraft({ packageName: "a", workspaceName: "ws" });
    await draft.updateResources(pkgFiles("a"), "create");
    await draft.closeDraft();
    fetches = 0;
    const listed = await s.listPackageRevisions();
    expect(fetches).toBe(1);
    expect(listed.map(r => r.ref)).toContain("refs/heads/drafts/other/ws");
  });

  it("publishes several revisions of several packages at once: gapless numbers, an approval commit each, the chain planned again when the branch moved", async () => {
    const { url, s } = await store();
    // Two packages, two proposals each; their revisions number in the order they were asked.
    const keys = ["x", "y"].flatMap(p =>
      ["ws1", "ws2"].map(ws => ({ packageName: p, workspaceName: ws })),
    );
    for (const key of keys) {
      const draft = await s.createNewDraft(key);
      await draft.updateResources(pkgFiles(key.packageName, key.workspaceName), key.workspaceName);
      await draft.closeDraft();
      await s.updateLifecycle(key, "Proposed");
    }
    // Another writer moves the branch as the first push lands: every publish plans again.
    await raceOnceOn(url, "refs/heads/main");
    pushes.length = 0;
    const published = await Promise.all(
      keys.map(k =>
        s.updateLifecycle(k, "Published", { approvedBy: `approver-${k.workspaceName}` }),
      ),
    );
    expect(published.map(r => `${r.ref} ${r.revision} ${r.publishedBy}`)).toEqual([
      "refs/tags/x/v1 1 approver-ws1",
      "refs/tags/x/v2 2 approver-ws2",
      "refs/tags/y/v1 1 approver-ws1",
      "refs/tags/y/v2 2 approver-ws2",
    ]);
    // Refused whole, then the chain again on the other writer's commit, then the proposals.
    const tagsAndBranch = [
      "refs/heads/main",
      ...keys.map((k, i) => `refs/tags/${k.packageName}/v${(i % 2) + 1}`),
    ];
    expect(pushes.map(refs => [...refs].sort())).toEqual([
      tagsAndBranch,
      tagsAndBranch,
      keys.map(k => `refs/heads/proposed/${k.packageName}/${k.workspaceName}`),
    ]);
    const work = await workClone(fx, url);
    const log = (await git(work, "log", "--first-parent", "--format=%H %an %s", "origin/main"))
      .trim()
      .split("\n");
    const approvals = log.filter(l => l.includes("Approving")).reverse();
    expect(approvals.map(l => l.split(" ").slice(1).join(" "))).toEqual([
      "approver-ws1 Approving package revision x/1",
      "approver-ws2 Approving package revision x/2",
      "approver-ws1 Approving package revision y/1",
      "approver-ws2 Approving package revision y/2",
    ]);
    for (const r of published) expect(approvals.map(l => l.split(" ")[0])).toContain(r.commit);
    expect(log.some(l => l.endsWith("concurrent writer"))).toBe(true);
    expect(await filesAt(fx, url, "refs/heads/main", "x")).toEqual(pkgFiles("x", "ws2"));
  });

  it("takes one push for a writer alone: a publish's tag, branch commit and proposal together", async () => {
    const { url, s } = await store();
    const key = { packageName: "solo", workspaceName: "ws" };
    const draft = await s.createNewDraft(key);
    await draft.updateResources(pkgFiles("solo"), "create");
    await draft.closeDraft();
    await s.updateLifecycle(key, "Proposed");
    pushes.length = 0;
    const published = await s.updateLifecycle(key, "Published");
    // One push (the CLI orders its commands branches first).
    expect(pushes.map(refs => [...refs].sort())).toEqual([
      ["refs/heads/main", "refs/heads/proposed/solo/ws", "refs/tags/solo/v1"],
    ]);
    const remote = await lsRemote(url);
    expect(remote.get("refs/tags/solo/v1")).toBe(published.commit);
    expect(remote.get("refs/heads/main")).toBe(published.commit);
    expect(remote.has("refs/heads/proposed/solo/ws")).toBe(false);
  });
});
