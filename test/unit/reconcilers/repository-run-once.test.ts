import { reconcileRepository } from "../../../capabilities/repository/reconcile";
import { DEFAULT_SYNC_INTERVAL_MS } from "../../../capabilities/repository/schedule";
import { RepositoryKind } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, NS, repositoryObject, seed } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const MINUTE = 60_000;
const KEY = `${NS}/repo`;

/** Whether the calls read git's packages and wrote the status: what a sync does and a wait does not. */
const synced = (calls: string[]) =>
  calls.includes(`list PackageRevision ${NS}`) &&
  calls.includes(`patch Repository ${KEY} (status)`);

describe("reconcileRepository: spec.sync.runOnceAt", () => {
  let h: TestOperator;
  let runOnceAt: string;

  /** A Repository asking for one extra sync in five minutes, synced once already. */
  beforeEach(async () => {
    h = await testOperator();
    runOnceAt = h.clock.in(5 * MINUTE);
    const url = await h.localRepository("repo");
    await seed(h.cluster, RepositoryKind, repositoryObject("repo", url, { sync: { runOnceAt } }));
    const calls = h.callsFrom();
    // The first reconcile syncs (nothing synced yet) and comes back when runOnceAt is due,
    // before the regular sync ten minutes on.
    await expect(reconcileRepository(KEY, h.ctx)).resolves.toEqual({
      requeueAfterMs: 5 * MINUTE,
    });
    expect(synced(calls())).toBe(true);
    const repo = await current(h.cluster, RepositoryKind, {
      metadata: { namespace: NS, name: "repo" },
    });
    expect(repo.status?.conditions?.find(c => c.type === "Ready")?.status).toBe("True");
    expect(repo.status?.observedRunOnceAt).toBeUndefined();
  });
  afterEach(() => h.close());

  const repository = () =>
    current(h.cluster, RepositoryKind, { metadata: { namespace: NS, name: "repo" } });

  it("waits for a future runOnceAt and schedules the requeue at that time", async () => {
    h.clock.advance(1 * MINUTE);
    const calls = h.callsFrom();

    await expect(reconcileRepository(KEY, h.ctx)).resolves.toEqual({
      requeueAfterMs: 4 * MINUTE,
    });

    expect(calls()).toEqual([`get Repository ${KEY}`]);
  });

  it("syncs when runOnceAt is due and records it as observed", async () => {
    const before = await repository();
    const now = h.clock.advance(5 * MINUTE);
    const calls = h.callsFrom();

    // The next regular sync is ten minutes after this one.
    await expect(reconcileRepository(KEY, h.ctx)).resolves.toEqual({
      requeueAfterMs: DEFAULT_SYNC_INTERVAL_MS,
    });

    expect(synced(calls())).toBe(true);
    const after = await repository();
    expect(after.status?.observedRunOnceAt).toBe(runOnceAt);
    expect(after.status?.lastFullSyncTime).toBe(now.toISOString());
    expect(after.status?.lastFullSyncTime).not.toBe(before.status?.lastFullSyncTime);
    expect(after.status?.nextFullSyncTime).toBe(h.clock.in(DEFAULT_SYNC_INTERVAL_MS));
  });

  it("does not sync again for a runOnceAt already carried out", async () => {
    h.clock.advance(5 * MINUTE);
    await reconcileRepository(KEY, h.ctx);
    h.clock.advance(1 * MINUTE);
    const calls = h.callsFrom();

    await expect(reconcileRepository(KEY, h.ctx)).resolves.toEqual({
      requeueAfterMs: DEFAULT_SYNC_INTERVAL_MS - 1 * MINUTE,
    });

    expect(calls()).toEqual([`get Repository ${KEY}`]);
    expect((await repository()).status?.observedRunOnceAt).toBe(runOnceAt);
  });

  it("syncs for a new runOnceAt after one was carried out", async () => {
    h.clock.advance(5 * MINUTE);
    await reconcileRepository(KEY, h.ctx);
    // Say the status was written for this generation: only runOnceAt can make the sync due.
    const later = h.clock.in(2 * MINUTE);
    await h.cluster.patch(
      RepositoryKind,
      { namespace: NS, name: "repo" },
      { merge: { spec: { sync: { runOnceAt: later } } } },
    );
    const changed = await repository();
    await h.cluster.patch(
      RepositoryKind,
      { namespace: NS, name: "repo" },
      { merge: { status: { observedGeneration: changed.metadata?.generation } } },
      { status: true },
    );
    await expect(reconcileRepository(KEY, h.ctx)).resolves.toEqual({
      requeueAfterMs: 2 * MINUTE,
    });
    h.clock.advance(2 * MINUTE);
    const calls = h.callsFrom();

    await reconcileRepository(KEY, h.ctx);

    expect(synced(calls())).toBe(true);
    expect((await repository()).status?.observedRunOnceAt).toBe(later);
  });
});
