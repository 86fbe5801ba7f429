import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { FairBudget } from "../../../lib/controller/fair-budget";
import { isGitStoreError } from "../../../lib/git";
import { IsoGitClient } from "../../../lib/git/iso-client";
import { DEFAULT_FETCH_MEMORY, FetchHold, fetchMemoryFromEnv } from "../../../lib/git/fetch-memory";
import { git, startFixture, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

// isomorphic-git holds each fetch's answers in memory until it ends: every fetch in flight takes
// its bytes from one budget (PORCH_PEPR_GIT_FETCH_MEMORY), a namespace at most its share. Before
// it, any number of fetches ran at once whatever they held together.
const MiB = 1024 * 1024;
let fx: Fixture;
let url: string;
beforeAll(async () => {
  fx = await startFixture();
  url = await fx.repo("big");
  const work = await workClone(fx, url);
  // Random bytes do not compress: the fetch brings about 3 MiB.
  await writeFiles(work, {
    "blob.bin": randomBytes(3 * MiB)
      .toString("base64")
      .slice(0, 3 * MiB),
  });
  await git(work, "add", ".");
  await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "big");
  await git(work, "push", "-q", "origin", "HEAD:main");
});
afterAll(() => fx.close());

const client = async (fetchMemory: FairBudget, namespace: string, from = url) => {
  const c = new IsoGitClient({
    gitdir: await fx.cacheRoot(),
    url: from,
    branch: "main",
    namespace,
    fetchMemory,
  });
  await c.init();
  return c;
};

describe("the fetch memory", () => {
  it("is 128 MiB by default, half of it per namespace, read from the settings", () => {
    const budget = fetchMemoryFromEnv({});
    expect([budget.limit, budget.perNamespace]).toEqual([DEFAULT_FETCH_MEMORY, 64 * MiB]);
    const set = fetchMemoryFromEnv({
      PORCH_PEPR_GIT_FETCH_MEMORY: String(8 * MiB),
      PORCH_PEPR_GIT_FETCH_MEMORY_PER_NAMESPACE: String(6 * MiB),
      PORCH_PEPR_GIT_FETCH_MEMORY_WAIT_MS: "250",
    });
    expect([set.limit, set.perNamespace, set.waitMs]).toEqual([8 * MiB, 6 * MiB, 250]);
  });

  it("is taken while a fetch runs and given back when it ends", async () => {
    let peak = 0;
    const budget = new FairBudget(8 * MiB, 8 * MiB, 60_000, u => (peak = Math.max(peak, u.taken)));
    await (await client(budget, "tenant")).fetch();
    expect(peak).toBeGreaterThanOrEqual(3 * MiB);
    expect(budget.slots.taken).toBe(0);
  });

  it("makes a fetch wait while other namespaces hold it, then fail FetchMemoryBusy naming the setting", async () => {
    const budget = new FairBudget(8 * MiB, 6 * MiB, 200);
    await budget.acquire("noisy", 6 * MiB);
    await budget.acquire("other", 2 * MiB);
    const error = await (await client(budget, "victim")).fetch().catch(e => e);
    expect(isGitStoreError(error, "FetchMemoryBusy")).toBe(true);
    expect(error.message).toMatch(
      /waited 200 ms for memory: fetches in flight hold the 8388608 bytes all may hold \(PORCH_PEPR_GIT_FETCH_MEMORY\)$/,
    );
    expect(budget.slots.heldBy("victim")).toBe(0);
    budget.release("noisy", 6 * MiB);
    await expect((await client(budget, "victim")).fetch()).resolves.toBeDefined();
  });

  it("refuses a fetch bigger than a namespace's share, naming that setting", async () => {
    const budget = new FairBudget(8 * MiB, 2 * MiB, 60_000);
    const error = await (await client(budget, "tenant")).fetch().catch(e => e);
    expect(isGitStoreError(error, "ContentTooLarge")).toBe(true);
    expect(error.message).toMatch(
      /brought more than the 2097152 bytes one namespace's fetches may hold in memory \(PORCH_PEPR_GIT_FETCH_MEMORY_PER_NAMESPACE\)$/,
    );
    expect(budget.slots.taken).toBe(0);
  });

  // Before, a trickling server kept what its fetch held until the total timeout (5 minutes):
  // two such namespaces held the whole budget, and every other tenant's fetch failed
  // FetchMemoryBusy after each wait.
  it("cuts a stalled fetch of a namespace over an equal split for a fetch of another that waited", async () => {
    const budget = fetchMemoryFromEnv({
      PORCH_PEPR_GIT_FETCH_MEMORY: String(4 * MiB),
      PORCH_PEPR_GIT_FETCH_MEMORY_WAIT_MS: "50",
    });
    const [first, second] = ["noisy-1", "noisy-2"].map(
      ns => new FetchHold(budget, ns, `http://${ns}.example/repo`),
    );
    await first.charge(2 * MiB); // each namespace its whole share: nothing left
    await second.charge(2 * MiB);
    // Neither receives a byte from here on; the victim's wait starts after a full wait bound.
    await new Promise(resolve => setTimeout(resolve, 50));
    const victim = new FetchHold(budget, "victim", "http://victim.example/repo");
    const waited = victim.charge(1);
    let victimDone = false;
    waited.catch(() => undefined).finally(() => (victimDone = true));
    // The stalled fetch learns it was cut with its next chunk, and ends (without the cut, the
    // victim's wait fails first).
    let error: unknown;
    while (error === undefined && !victimDone) {
      error = await first.charge(0).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (error === undefined) await new Promise(resolve => setTimeout(resolve, 10));
    }
    expect(isGitStoreError(error, "Timeout")).toBe(true);
    expect((error as Error).message).toBe(
      "git fetch from http://noisy-1.example/repo was cut: it held 2097152 bytes of fetch memory and received less than 1048576 bytes in 50 ms while a fetch of another namespace waited for memory (PORCH_PEPR_GIT_FETCH_MEMORY_WAIT_MS)",
    );
    first.release();
    await expect(waited).resolves.toBeUndefined();
    expect(budget.slots.heldBy("victim")).toBe(MiB);
    expect(second.stalled).toBe(true); // one cut made room: the other is left alone
    second.release();
    victim.release();
  });

  it("cuts, through the isomorphic-git transport, a fetch whose server trickles after a fast start", async () => {
    const budget = fetchMemoryFromEnv({
      PORCH_PEPR_GIT_FETCH_MEMORY: String(4 * MiB),
      PORCH_PEPR_GIT_FETCH_MEMORY_WAIT_MS: "300",
    });
    // The big repository through a proxy that passes 1.5 MiB of each pack at once and then a
    // byte every 100 ms: never idle, each fetch holding its namespace's whole share.
    const origin = new URL(url);
    const trickles = new Set<NodeJS.Timeout>();
    const proxy = http.createServer((req, res) => {
      const upstream = http.request(
        {
          host: origin.hostname,
          port: origin.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        answer => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          if (req.method !== "POST") return void answer.pipe(res);
          const body: Buffer[] = [];
          answer.on("data", (d: Buffer) => body.push(d));
          answer.on("end", () => {
            const all = Buffer.concat(body);
            res.write(all.subarray(0, 1.5 * MiB));
            let at = 1.5 * MiB;
            const timer = setInterval(() => {
              if (at < all.length) res.write(all.subarray(at, ++at));
            }, 100);
            trickles.add(timer);
            res.on("close", () => clearInterval(timer));
          });
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>(resolve => proxy.listen(0, "127.0.0.1", resolve));
    const proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${origin.pathname}`;
    const small = await fx.repo("small");
    const work = await workClone(fx, small);
    await writeFiles(work, { "README.md": "small\n" });
    await git(work, "add", ".");
    await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "small");
    await git(work, "push", "-q", "origin", "HEAD:main");
    try {
      const noisy = ["noisy-1", "noisy-2"].map(async ns =>
        (await client(budget, ns, proxied)).fetch().catch((e: unknown) => e),
      );
      // Both hold their share before the victim asks.
      while (budget.slots.taken < 4 * MiB) await new Promise(resolve => setTimeout(resolve, 20));
      await expect((await client(budget, "victim", small)).fetch()).resolves.toBeDefined();
      const [first] = await Promise.race([Promise.all([noisy[0]]), Promise.all([noisy[1]])]);
      expect(isGitStoreError(first, "Timeout")).toBe(true);
      expect((first as Error).message).toMatch(/was cut: it held 2097152 bytes of fetch memory/);
    } finally {
      for (const timer of trickles) clearInterval(timer);
      proxy.closeAllConnections();
      await new Promise(resolve => proxy.close(resolve));
    }
  });
});
