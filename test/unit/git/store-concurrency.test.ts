import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GitContentStore, type GitClientKind } from "../../../lib/git";
import {
  CLIENTS,
  filesAt,
  git,
  lsRemote,
  pkgFiles,
  startFixture,
  track,
  workClone,
  type Fixture,
} from "./helpers";

jest.setTimeout(120_000);

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

async function publishFlow(
  store: GitContentStore,
  packageName: string,
  workspaceName: string,
  value: string,
) {
  const draft = await store.createNewDraft({ packageName, workspaceName });
  await draft.updateResources(pkgFiles(packageName, value), `create ${workspaceName}`);
  await draft.closeDraft();
  await store.updateLifecycle({ packageName, workspaceName }, "Proposed");
  return store.updateLifecycle({ packageName, workspaceName }, "Published");
}

const ROUNDS = 3;
/** The store's default: a write whose push was rejected is retried at most this many times - 1. */
const MAX_PUSH_ATTEMPTS = 8;
/** Pushes of one publishFlow: draft, its resources, close, Proposed, Published (at most). */
const PUSHES_PER_FLOW = 5;

/**
 * Installs a pre-receive hook that, once, plays a concurrent writer: it commits on main and tags
 * that commit app/v2 before our push's ref updates run, so they fail their old-value check.
 */
async function raceOnNextPush(url: string): Promise<void> {
  const repoDir = join(fx.server.root, new URL(url).pathname.slice(1));
  const hook = `#!/bin/sh
[ -f "$GIT_DIR/raced" ] && exit 0
touch "$GIT_DIR/raced"
# Act outside receive-pack's object quarantine, like a separate writer would.
unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
set -e
export GIT_AUTHOR_NAME=other GIT_AUTHOR_EMAIL=other@example.com GIT_COMMITTER_NAME=other GIT_COMMITTER_EMAIL=other@example.com
c=$(git commit-tree "refs/heads/main^{tree}" -p refs/heads/main -m "concurrent writer")
git update-ref refs/heads/main "$c"
git update-ref refs/tags/app/v2 "$c"
`;
  await writeFile(join(repoDir, "hooks", "pre-receive"), hook, { mode: 0o755 });
}

describe.each(CLIENTS)("two writers with the %s client", client => {
  async function twoStores(sameCache: boolean, readFreshnessMs = 0) {
    const url = await fx.repo();
    const rootA = await fx.cacheRoot();
    const rootB = sameCache ? rootA : await fx.cacheRoot();
    // Only rejected pushes count: how many depends on scheduling, never on correctness.
    const retries = { count: 0 };
    const log = {
      debug: (msg: string) => void (msg.startsWith("push rejected") && retries.count++),
      warn: () => undefined,
    };
    const a = track(
      new GitContentStore(
        { url, createBranch: true },
        { cacheRoot: rootA, client, log, readFreshnessMs },
      ),
    );
    const b = track(
      new GitContentStore(
        { url, createBranch: true },
        { cacheRoot: rootB, client, log, readFreshnessMs },
      ),
    );
    await a.open();
    return { url, a, b, retries };
  }

  it.each([
    ["separate caches (like two processes)", false, 0],
    ["one cache (serialised in-process)", true, 0],
    // Each writer trusts refs it fetched a minute ago: only the push leases keep it honest.
    ["separate caches trusting stale refs", false, 60_000],
  ])("lose no publication with %s", async (_label, sameCache, readFreshnessMs) => {
    const { url, a, b, retries } = await twoStores(sameCache, readFreshnessMs);
    const runs = [a, b].map(async (store, w) => {
      const results = [];
      for (let r = 0; r < ROUNDS; r++) {
        // Both writers publish the shared package and one of their own, interleaved.
        results.push(await publishFlow(store, "shared", `w${w}-r${r}`, `${w}-${r}`));
        results.push(await publishFlow(store, `own${w}`, `r${r}`, `${r}`));
      }
      return results;
    });
    const results = (await Promise.all(runs)).flat();
    // Every publication succeeded (none gave up); how often a push lost a race depends on how
    // the two writers were scheduled, so only the structural bound is asserted: no write
    // retries more than its attempts allow, whatever the machine's load.
    expect(results).toHaveLength(4 * ROUNDS);
    expect(retries.count).toBeLessThanOrEqual(
      4 * ROUNDS * PUSHES_PER_FLOW * (MAX_PUSH_ATTEMPTS - 1),
    );

    const sharedRevisions = results.filter(r => r.packageName === "shared").map(r => r.revision);
    expect([...sharedRevisions].sort((x, y) => x - y)).toEqual(
      Array.from({ length: 2 * ROUNDS }, (_, i) => i + 1),
    );
    const refs = await lsRemote(url);
    const tags = [...refs.keys()].filter(r => r.startsWith("refs/tags/")).sort();
    expect(tags).toEqual(
      [
        ...Array.from({ length: 2 * ROUNDS }, (_, i) => `refs/tags/shared/v${i + 1}`),
        ...Array.from({ length: ROUNDS }, (_, i) => `refs/tags/own0/v${i + 1}`),
        ...Array.from({ length: ROUNDS }, (_, i) => `refs/tags/own1/v${i + 1}`),
      ].sort(),
    );
    // Every tag carries the content its workspace published, and the branch has every package.
    for (const r of results) {
      const value =
        r.packageName === "shared"
          ? r.workspaceName.replace(/^w(\d)-r(\d)$/, "$1-$2")
          : r.workspaceName.slice(1);
      expect(await filesAt(fx, url, r.ref, r.packageName)).toEqual(pkgFiles(r.packageName, value));
    }
    const work = await workClone(fx, url);
    const onBranch = (await git(work, "ls-tree", "--name-only", "origin/main")).trim().split("\n");
    expect(onBranch).toEqual(["README.md", "own0", "own1", "shared"]);
    // Every publication is an approval commit on the branch's first-parent history.
    const approvals = (await git(work, "log", "--first-parent", "--format=%s", "origin/main"))
      .split("\n")
      .filter(l => l.startsWith("Approving"));
    expect(approvals).toHaveLength(4 * ROUNDS);
    expect(refs.size).toBe(1 + 1 + 4 * ROUNDS); // HEAD, main, tags; no draft or proposed branch left
  });

  it("refetches, renumbers and rebases a publish whose push lost a race", async () => {
    const { url, a, retries } = await twoStores(false);
    await publishFlow(a, "app", "one", "1");
    const draft = await a.createNewDraft({ packageName: "app", workspaceName: "two" });
    await draft.updateResources(pkgFiles("app", "2"), "create two");
    await draft.closeDraft();
    await a.updateLifecycle({ packageName: "app", workspaceName: "two" }, "Proposed");
    // Another writer gets in between our fetch and our push: it moves main and takes app/v2.
    await raceOnNextPush(url);
    const published = await a.updateLifecycle(
      { packageName: "app", workspaceName: "two" },
      "Published",
    );
    expect(published).toMatchObject({ revision: 3, ref: "refs/tags/app/v3", workspaceName: "two" });
    expect(retries.count).toBe(1);
    const work = await workClone(fx, url);
    const subjects = (await git(work, "log", "--first-parent", "--format=%s", "origin/main"))
      .trim()
      .split("\n");
    expect(subjects.slice(0, 2)).toEqual(["Approving package revision app/3", "concurrent writer"]);
    expect(await filesAt(fx, url, "refs/tags/app/v3", "app")).toEqual(pkgFiles("app", "2"));
    expect((await a.listPackageRevisions()).map(r => `${r.workspaceName}:${r.revision}`)).toEqual([
      "main:-1",
      "one:1",
      "v2:2",
      "two:3",
    ]);
  });

  it.each([0, 60_000])(
    "replays concurrent edits of one draft so both commits stay in its history (refs trusted for %i ms)",
    async readFreshnessMs => {
      const { url, a, b } = await twoStores(false, readFreshnessMs);
      const key = { packageName: "app", workspaceName: "ws" };
      const first = await a.createNewDraft(key);
      await first.updateResources(pkgFiles("app", "base"), "base");
      await first.closeDraft();

      const [da, db] = await Promise.all([
        a.createDraftFromExisting(key),
        b.createDraftFromExisting(key),
      ]);
      await da.updateResources(pkgFiles("app", "from-a"), "edit from a");
      await db.updateResources(pkgFiles("app", "from-b"), "edit from b");
      const [ia, ib] = await Promise.all([da.closeDraft(), db.closeDraft()]);

      const head = (await lsRemote(url)).get("refs/heads/drafts/app/ws");
      expect([ia.commit, ib.commit]).toContain(head);
      const work = await workClone(fx, url);
      const subjects = (await git(work, "log", "--format=%s", "origin/drafts/app/ws"))
        .trim()
        .split("\n");
      expect(subjects.slice(0, 2).sort()).toEqual(["edit from a", "edit from b"]);
      expect(subjects).toContain("base");
      const winner = subjects[0] === "edit from a" ? "from-a" : "from-b";
      // Read through a new store: `a` may trust its own (now stale) view for readFreshnessMs.
      const reader = track(
        new GitContentStore({ url }, { cacheRoot: await fx.cacheRoot(), client }),
      );
      expect((await reader.getPackageContent(key)).files).toEqual(pkgFiles("app", winner));
    },
  );
});
