import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { reconcileLifecycle } from "../../../capabilities/package-revision/lifecycle";
import {
  reconcilePackageRevision,
  runLifecycle,
} from "../../../capabilities/package-revision/reconcile";
import { condition } from "../../../capabilities/package-revision/status";
import {
  batchWaits,
  pendingMovesOf,
  writersComing,
} from "../../../capabilities/package-revision/writers";
import { PackageRevision, PackageRevisionKind, RepositoryKind } from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { GitStoreError, type ContentStore, type PackageRevisionInfo } from "../../../lib/git";
import { LATEST_REVISION_LABEL } from "../../../lib/packages/latest-revision";
import { testOperator, type TestOperator } from "../../support/operator-context";
import {
  current,
  draftOnItsWay,
  draftRevision,
  kptfile,
  NS,
  renderedDraft,
  repositoryObject,
  seed,
} from "./fixtures";

process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

/** `pr` asked to be at `lifecycle`, as the API server and the watch cache then hold it. */
async function ask(h: TestOperator, pr: PackageRevision, lifecycle: string) {
  const asked = await h.cluster.patch(PackageRevisionKind, refOf(pr), {
    merge: { spec: { lifecycle } },
  });
  h.ctx.caches.revisions.cache.upsert(asked);
  return asked;
}

/** Ready as the lifecycle step states a revision git holds at `lifecycle`, at `generation`. */
const readyInGitAt = (lifecycle: string, generation: number) => ({
  type: "Ready",
  status: "True" as const,
  reason: "Ready",
  message: `${lifecycle} in git`,
  observedGeneration: generation,
  lastTransitionTime: "2026-01-01T00:00:00Z",
});

const settled = (h: TestOperator) =>
  new Promise<string>(resolve => pendingMovesOf(h.ctx).onSettled(resolve));

/**
 * Issue 29: a lifecycle move whose repository has other writers on their way hands its ref
 * updates to the repository's next push and ends its reconcile: no worker waits on the push.
 * Its status says nothing new until the push landed; then it is reconciled again and states
 * what the awaited move would have.
 */
describe("a move whose repository has other writers on their way", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("is handed to the push, and stated only after it is in git and its revision came back", async () => {
    const d = await renderedDraft(h);
    await draftOnItsWay(h);
    const generation = (await ask(h, d.pr, "Proposed")).metadata?.generation;
    const woken = settled(h);

    await reconcilePackageRevision(d.queueKey, h.ctx);
    // Handed in: Ready still speaks of the draft, at the generation before.
    const handedIn = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(condition(handedIn, "Ready")).toMatchObject({ status: "True", message: "Draft in git" });
    expect(condition(handedIn, "Ready")?.observedGeneration).toBeLessThan(generation!);

    expect(await woken).toBe(d.queueKey);
    expect((await d.store.getPackageContent(d.key)).info.lifecycle).toBe("Proposed");
    await reconcilePackageRevision(d.queueKey, h.ctx);
    const after = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(condition(after, "Ready")).toMatchObject({
      status: "True",
      message: "Proposed in git",
      observedGeneration: generation,
    });
    expect(pendingMovesOf(h.ctx).handedIn(`${NS}/repo`)).toBe(0);
  });

  it("states a publish that landed with its revision, and moves the latest label", async () => {
    const d = await renderedDraft(h);
    await ask(h, d.pr, "Proposed");
    await reconcilePackageRevision(d.queueKey, h.ctx); // alone: awaited
    await draftOnItsWay(h);
    const generation = (await ask(h, d.pr, "Published")).metadata?.generation;
    const woken = settled(h);

    await reconcilePackageRevision(d.queueKey, h.ctx);
    const handedIn = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(condition(handedIn, "Ready")).toMatchObject({ message: "Proposed in git" });

    await woken;
    await reconcilePackageRevision(d.queueKey, h.ctx);
    const after = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(after.status?.revision).toBe(1);
    expect(after.status?.selfLock).toBeDefined();
    expect(condition(after, "Ready")).toMatchObject({
      status: "True",
      message: "Published in git",
      observedGeneration: generation,
    });
    expect(after.metadata?.labels?.[LATEST_REVISION_LABEL]).toBe("true");
  });

  // Handed in, a tenant's burst would free its workers for its next writes while another
  // tenant's wait (the fairness rule the noisy-neighbour campaign required of drafts).
  it("waits for its push in its worker while another namespace has work", async () => {
    const d = await renderedDraft(h);
    await draftOnItsWay(h);
    await ask(h, d.pr, "Proposed");
    h.ctx.stores.othersActive = namespace => namespace !== "victim";

    await reconcilePackageRevision(d.queueKey, h.ctx);
    const after = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(condition(after, "Ready")).toMatchObject({ status: "True", message: "Proposed in git" });
  });
});

/**
 * What the landing of a handed-in move is taken for, against a store that stands in for git
 * (the store's own moves are tested in test/unit/git): `git` is what it finds, `move` what its
 * updateLifecycle answers.
 */
describe("the landing of a handed-in move", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  const info = (lifecycle: PackageRevisionInfo["lifecycle"], revision = 0) =>
    ({
      packageName: "app",
      workspaceName: "v1",
      path: "app",
      lifecycle,
      revision,
      commit: `c${revision}`,
      ref: revision > 0 ? `refs/tags/app/v${revision}` : "refs/heads/proposed/app/v1",
    }) as PackageRevisionInfo;

  function storeOf(git: () => PackageRevisionInfo, move: () => Promise<PackageRevisionInfo>) {
    return {
      config: { url: "https://example.com/repo.git" },
      findRevision: async () => git(),
      updateLifecycle: move,
      reconsiderPush: () => {},
    } as unknown as ContentStore;
  }

  /** A Proposed revision (its status says so, at generation 1) asked to be Published. */
  async function publishing(): Promise<PackageRevision> {
    const pr = await seed(h.cluster, PackageRevisionKind, {
      metadata: { name: "repo.app.v1", namespace: NS },
      spec: { repository: "repo", packageName: "app", workspaceName: "v1", lifecycle: "Proposed" },
      status: { observedGeneration: 1, conditions: [readyInGitAt("Proposed", 1)] },
    } as PackageRevision);
    await draftOnItsWay(h);
    return ask(h, pr, "Published");
  }

  it("is a refusal stated as the awaited move states it, and a server down thrown for a retry", async () => {
    const pr = await publishing();
    for (const error of [
      new GitStoreError("Conflict", "gave up after 8 attempts"),
      new GitStoreError("Transport", "connection reset"),
    ]) {
      const store = storeOf(
        () => info("Proposed"),
        () => Promise.reject(error),
      );
      h.ctx.stores.othersActive = () => true;
      const awaited = await reconcileLifecycle(h.ctx, pr, store).catch((e: unknown) => e);
      h.ctx.stores.othersActive = () => false;
      const woken = settled(h);
      expect(await reconcileLifecycle(h.ctx, pr, store)).toEqual({ kind: "movePending" });
      await woken;
      const landed = await reconcileLifecycle(h.ctx, pr, store).catch((e: unknown) => e);
      expect(landed).toEqual(awaited);
    }
  });

  it("is not used for a newer generation: the move is planned again from git", async () => {
    const pr = await publishing();
    let land: (moved: PackageRevisionInfo) => void = () => {};
    const push = new Promise<PackageRevisionInfo>(resolve => (land = resolve));
    let git = info("Proposed");
    const store = storeOf(
      () => git,
      () => push,
    );
    expect(await reconcileLifecycle(h.ctx, pr, store)).toEqual({ kind: "movePending" });

    // The spec changed meanwhile (still Published): no move is planned beside one in flight.
    const newer = await h.cluster.patch(PackageRevisionKind, refOf(pr), {
      merge: { spec: { readinessGates: [] } },
    });
    expect(newer.metadata?.generation).toBe(3);
    expect(await reconcileLifecycle(h.ctx, newer, store)).toEqual({ kind: "movePending" });

    // Landed as revision 1; git, read again, holds revision 2 (another writer's publish).
    const woken = settled(h);
    land(info("Published", 1));
    await woken;
    git = info("Published", 2);
    expect(await reconcileLifecycle(h.ctx, newer, store)).toMatchObject({
      kind: "inGit",
      lifecycle: "Published",
      fields: { revision: 2 },
    });
  });
});

/**
 * What handing moves in is for: the publishes of one repository asked at once go to git
 * together, their tags and branch commit in one atomic push and the proposals' removals in the
 * next, not each publish in a push of its own while a worker waits. Pushes are counted at the
 * repository (a post-receive hook: one line per push that landed).
 */
describe("publishes of one repository asked at once", () => {
  const PUBLISHES = 6;
  let h: TestOperator;
  const linger = process.env.PORCH_PEPR_GIT_PUSH_LINGER_MS;
  beforeEach(async () => {
    // Only a bound: the batch goes once no writer is on its way; a count that never reached
    // zero would wait it out, past the test's timeout.
    process.env.PORCH_PEPR_GIT_PUSH_LINGER_MS = "60000";
    h = await testOperator();
  });
  afterEach(async () => {
    process.env.PORCH_PEPR_GIT_PUSH_LINGER_MS = linger;
    if (linger === undefined) delete process.env.PORCH_PEPR_GIT_PUSH_LINGER_MS;
    await h.close();
  });

  /** Repository "repo" with PUBLISHES proposals in git, each revision stated Proposed. */
  async function proposals(pushLog: string) {
    const url = await h.localRepository("repo");
    const hooks = join(fileURLToPath(url), "hooks");
    mkdirSync(hooks, { recursive: true });
    writeFileSync(join(hooks, "post-receive"), `#!/bin/sh\necho push >> '${pushLog}'\n`, {
      mode: 0o755,
    });
    const repository = await seed(h.cluster, RepositoryKind, repositoryObject("repo", url));
    const store = await h.ctx.stores.of(repository);
    await store.open();
    const revisions: PackageRevision[] = [];
    for (let i = 0; i < PUBLISHES; i++) {
      const key = { packageName: `app-${i}`, workspaceName: "v1" };
      const draft = await store.createNewDraft(key);
      await draft.updateResources({ Kptfile: kptfile(`app-${i}`) }, "init");
      await draft.closeDraft();
      await store.updateLifecycle(key, "Proposed");
      revisions.push(
        await seed(h.cluster, PackageRevisionKind, {
          metadata: { name: `repo.app-${i}.v1`, namespace: NS },
          spec: { ...key, repository: "repo", lifecycle: "Proposed" },
          status: { observedGeneration: 1, conditions: [readyInGitAt("Proposed", 1)] },
        } as PackageRevision),
      );
    }
    return { store, revisions };
  }

  it("land in two pushes, and each is stated with its revision once landed", async () => {
    const pushLog = join(h.tmp, "pushes.log");
    const pushes = () =>
      existsSync(pushLog) ? readFileSync(pushLog, "utf8").split("\n").filter(Boolean).length : 0;
    const { store, revisions } = await proposals(pushLog);
    // The operator's wiring (capabilities/package-revision/index.ts): the batch asks the cache.
    h.ctx.stores.writersComing = (namespace, name) => batchWaits(h.ctx, namespace, name);
    const asked: PackageRevision[] = [];
    for (const pr of revisions) asked.push(await ask(h, pr, "Published"));
    const before = pushes();
    const woken: string[] = [];
    const allWoken = new Promise<void>(resolve =>
      pendingMovesOf(h.ctx).onSettled(key => {
        woken.push(key);
        if (woken.length === PUBLISHES - 1) resolve();
      }),
    );

    // One worker goes through them: all but the last hand their move in (others are still on
    // their way), the last waits for the push that carries them all.
    // The last one's move landed whole when its reconcile ended: so did the batches with it.
    for (const pr of asked) await runLifecycle(h.ctx, pr, store);
    expect(pushes() - before).toBe(2);
    await allWoken;

    for (const pr of asked) await runLifecycle(h.ctx, pr, store);
    for (const pr of asked) {
      const stated = await current(h.cluster, PackageRevisionKind, pr);
      expect(stated.status?.revision).toBe(1);
      expect(condition(stated, "Ready")).toMatchObject({ message: "Published in git" });
    }
  });
});

describe("a move of a revision git does not hold", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("waits while its source has not run, and fails once it has (so it is not on its way for good)", async () => {
    const d = await draftRevision(h, { Kptfile: kptfile("app") });
    const gone: PackageRevision = {
      metadata: { name: "repo.gone.v1", namespace: NS, generation: 2 },
      spec: {
        repository: "repo",
        packageName: "gone",
        workspaceName: "v1",
        lifecycle: "Proposed",
        source: { type: "init" },
      },
    } as PackageRevision;
    expect(await reconcileLifecycle(h.ctx, gone, d.store)).toEqual({ kind: "unchanged" });
    gone.status = { creationSource: "init" };
    expect(await reconcileLifecycle(h.ctx, gone, d.store)).toMatchObject({
      kind: "failed",
      message: "package revision gone/v1 not found in git",
    });
  });
});

describe("a repository's push while one of its writes waits in a worker", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("does not linger for the writers on their way (they may be queued behind that worker)", async () => {
    await draftOnItsWay(h);
    expect(writersComing(h.ctx, NS, "repo")).toBe(true);
    expect(batchWaits(h.ctx, NS, "repo")).toBe(true);
    let land = () => {};
    const push = new Promise<void>(resolve => (land = resolve));
    const awaited = pendingMovesOf(h.ctx).writing(`${NS}/repo`, push, false);
    expect(batchWaits(h.ctx, NS, "repo")).toBe(false);
    // Others are still on their way: only the lingering stops.
    expect(writersComing(h.ctx, NS, "repo")).toBe(true);
    land();
    await awaited;
    expect(batchWaits(h.ctx, NS, "repo")).toBe(true);
  });
});
