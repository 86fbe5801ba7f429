import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { GitContentStore, type GitClientKind } from "../../../lib/git";
import {
  CacheDiskLedger,
  cacheDiskFromEnv,
  DEFAULT_CACHE_DISK_BYTES,
  diskUsage,
  evictions,
  processCacheDisk,
  removeCache,
} from "../../../lib/git/cache-disk";
import { ContentStores } from "../../../capabilities/shared/content-stores";
import type { Repository } from "../../../crd-types";
import type { Cluster } from "../../../lib/cluster/port";
import { CLIENTS, filesAt, pkgFiles, startFixture, track, type Fixture } from "./helpers";

jest.setTimeout(60_000);

// The git caches' disk: a deleted Repository's cache is deleted, and all caches together stay
// within PORCH_PEPR_GIT_CACHE_DISK_BYTES, the least recently used idle ones evicted and fetched
// again when used. Before this, caches were never removed.
describe("CacheDiskLedger", () => {
  const never = () => false;

  it("evicts the least recently used caches past the bound, the one just used only alone over it", () => {
    const ledger = new CacheDiskLedger(100);
    expect(ledger.used("a", "ns", 40, never)).toEqual([]);
    expect(ledger.used("b", "ns", 40, never)).toEqual([]);
    expect(ledger.used("a", "ns", 40, never)).toEqual([]); // a is now the most recent
    expect(ledger.used("c", "ns", 40, never)).toEqual(["b"]);
    expect(ledger.total).toBe(80);
    expect(ledger.used("c", "ns", 70, never)).toEqual(["a"]); // over the bound with a: a goes
    expect(ledger.total).toBe(70);
    expect(ledger.used("c", "ns", 500, never)).toEqual(["c"]); // alone over it: c goes after its use
    expect(ledger.total).toBe(0);
  });

  it("skips a cache in use", () => {
    const ledger = new CacheDiskLedger(100);
    ledger.used("busy", "ns", 60, never);
    ledger.used("idle", "ns", 30, never);
    expect(ledger.used("new", "ns", 30, dir => dir === "busy")).toEqual(["idle"]);
    expect(ledger.total).toBe(90);
  });

  // Before the shares, one tenant's growth evicted every other tenant's caches (LRU over all).
  it("keeps one namespace within its share: its own caches go, not another's", () => {
    const ledger = new CacheDiskLedger(100, 50);
    ledger.used("victim", "quiet", 20, never); // the least recently used of all
    expect(ledger.used("big-1", "noisy", 30, never)).toEqual([]);
    expect(ledger.used("big-2", "noisy", 30, never)).toEqual(["big-1"]); // 60 > its 50
    expect(ledger.used("big-3", "noisy", 45, never)).toEqual(["big-2"]);
    expect(ledger.heldBy("noisy")).toBe(45);
    expect(ledger.heldBy("quiet")).toBe(20);
    expect(ledger.used("huge", "noisy", 60, never)).toEqual(["big-3", "huge"]); // alone over 50
    expect(ledger.heldBy("quiet")).toBe(20);
  });

  it("past the whole bound, takes from the namespaces over an equal split first", () => {
    const ledger = new CacheDiskLedger(90, 50);
    ledger.used("a-old", "a", 10, never); // least recently used, but a holds less than 90/3
    ledger.used("b-1", "b", 40, never);
    ledger.used("c-1", "c", 30, never);
    // 95 > 90, each within its share: b (40) and c (45) hold more than 90/3, a does not.
    expect(ledger.used("c-2", "c", 15, never)).toEqual(["b-1"]);
    expect(ledger.heldBy("a")).toBe(10);
    expect(ledger.total).toBe(55);
  });

  it("shares the disk by half unless set", () => {
    expect(cacheDiskFromEnv({ PORCH_PEPR_GIT_CACHE_DISK_BYTES: "1000" }).ledger.perNamespace).toBe(
      500,
    );
    const set = cacheDiskFromEnv({
      PORCH_PEPR_GIT_CACHE_DISK_BYTES: "1000",
      PORCH_PEPR_GIT_CACHE_DISK_PER_NAMESPACE_BYTES: "800",
    });
    expect(set.ledger.perNamespace).toBe(800);
  });

  it("is 2 GiB by default", () => {
    expect(DEFAULT_CACHE_DISK_BYTES).toBe(2 * 1024 ** 3);
  });
});

let fx: Fixture;
beforeAll(async () => {
  // Two caches of a 200 KB file pass this bound together; one alone does not.
  process.env.PORCH_PEPR_GIT_CACHE_DISK_BYTES = "300000";
  process.env.PORCH_PEPR_GIT_CACHE_DISK_PER_NAMESPACE_BYTES = "300000"; // one namespace here
  fx = await startFixture();
});
afterAll(async () => {
  delete process.env.PORCH_PEPR_GIT_CACHE_DISK_BYTES;
  delete process.env.PORCH_PEPR_GIT_CACHE_DISK_PER_NAMESPACE_BYTES;
  await fx.close();
});

async function seeded(client: GitClientKind, name: string) {
  const url = await fx.repo();
  const store = track(
    new GitContentStore(
      { url, createBranch: true },
      { cacheRoot: await fx.cacheRoot(), client, namespace: "tenant" },
    ),
  );
  const d = await store.createNewDraft({ packageName: name, workspaceName: "w" });
  await d.updateResources(pkgFiles(name, randomBytes(150_000).toString("base64")), "init");
  await d.closeDraft();
  await store.listPackageRevisions(); // measured after the fetch that saw its refs move
  return { url, store };
}

describe.each(CLIENTS)("the cache disk bound (%s)", client => {
  it("evicts the least recently used idle cache, which is fetched again when used", async () => {
    const first = await seeded(client, "one");
    expect(await diskUsage(first.store.cacheDir)).toBeLessThan(300_000);
    // Counted as the namespace's, the one its store was opened for.
    expect(processCacheDisk().ledger.heldBy("tenant")).toBeGreaterThan(0);
    expect(existsSync(first.store.cacheDir)).toBe(true);
    const second = await seeded(client, "two");
    await processCacheDisk().settled();
    expect(existsSync(first.store.cacheDir)).toBe(false);
    expect(evictions(first.store.cacheDir)).toBe(1);
    const listed = await first.store.listPackageRevisions();
    expect(listed.map(r => r.packageName)).toEqual(["one"]);
    expect(existsSync(first.store.cacheDir)).toBe(true);
  });

  it("keeps a draft's edits when its cache is evicted before it is closed", async () => {
    const { url, store } = await seeded(client, "app");
    const d = await store.createDraftFromExisting({ packageName: "app", workspaceName: "w" });
    await d.updateResources(pkgFiles("app", "edited"), "edit");
    await removeCache(store.cacheDir);
    await d.closeDraft();
    expect(await filesAt(fx, url, "refs/heads/drafts/app/w", "app")).toEqual(
      pkgFiles("app", "edited"),
    );
  });
});

describe("a deleted Repository", () => {
  it("has its cache deleted", async () => {
    const url = await fx.repo();
    const stores = new ContentStores(
      {} as Cluster,
      { debug() {}, warn() {} },
      await fx.cacheRoot(),
    );
    const repo = {
      metadata: { namespace: "tenant", name: "r" },
      spec: { git: { repo: url, createBranch: true } },
    } as Repository;
    const store = await stores.of(repo);
    await store.open();
    expect(existsSync(store.cacheDir)).toBe(true);
    await stores.forget("tenant", "r");
    expect(existsSync(store.cacheDir)).toBe(false);
  });

  it("or a URL it no longer names has its old cache deleted", async () => {
    const [a, b] = [await fx.repo(), await fx.repo()];
    const stores = new ContentStores(
      {} as Cluster,
      { debug() {}, warn() {} },
      await fx.cacheRoot(),
    );
    const repo = (url: string) =>
      ({
        metadata: { namespace: "tenant", name: "r" },
        spec: { git: { repo: url, createBranch: true } },
      }) as Repository;
    const old = await stores.of(repo(a));
    await old.open();
    const renamed = await stores.of(repo(b));
    expect(existsSync(old.cacheDir)).toBe(false);
    await renamed.open();
    await stores.forget("tenant", "r");
  });
});
