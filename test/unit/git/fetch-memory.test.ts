import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { FairBudget } from "../../../lib/controller/fair-budget";
import { isGitStoreError } from "../../../lib/git";
import { IsoGitClient } from "../../../lib/git/iso-client";
import {
  DEFAULT_FETCH_MEMORY,
  FETCH_MEMORY_PER_BYTE,
  FetchHold,
  fetchMemoryFromEnv,
} from "../../../lib/git/fetch-memory";
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
    // The fetch takes about 7 MiB (three bytes per byte of its 2.3 MB pack).
    const budget = new FairBudget(16 * MiB, 12 * MiB, 200);
    await budget.acquire("noisy", 12 * MiB);
    await budget.acquire("other", 4 * MiB);
    const error = await (await client(budget, "victim")).fetch().catch(e => e);
    expect(isGitStoreError(error, "FetchMemoryBusy")).toBe(true);
    expect(error.message).toMatch(
      /waited 200 ms for memory: fetches in flight hold the 16777216 bytes all may hold \(PORCH_PEPR_GIT_FETCH_MEMORY\)$/,
    );
    expect(budget.slots.heldBy("victim")).toBe(0);
    budget.release("noisy", 12 * MiB);
    await expect((await client(budget, "victim")).fetch()).resolves.toBeDefined();
  });

  it("refuses a fetch bigger than a namespace's share, naming that setting", async () => {
    const budget = new FairBudget(8 * MiB, 2 * MiB, 60_000);
    const error = await (await client(budget, "tenant")).fetch().catch(e => e);
    expect(isGitStoreError(error, "ContentTooLarge")).toBe(true);
    expect(error.message).toMatch(
      /needs more than the 2097152 bytes one namespace's fetches may hold in memory \(PORCH_PEPR_GIT_FETCH_MEMORY_PER_NAMESPACE; each byte received takes 3\)$/,
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
    // Each namespace its whole share (each byte received costs FETCH_MEMORY_PER_BYTE): nothing left.
    const share = Math.floor((2 * MiB) / FETCH_MEMORY_PER_BYTE);
    await first.charge(share);
    await second.charge(share);
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
      "git fetch from http://noisy-1.example/repo was cut: it held 2097152 bytes of fetch memory and received less than 349526 bytes in 50 ms while a fetch of another namespace waited for memory (PORCH_PEPR_GIT_FETCH_MEMORY_WAIT_MS)",
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
    // The big repository through a proxy that passes 0.5 MiB of each pack at once (1.5 MiB of
    // fetch memory) and then a byte every 100 ms: never idle, each fetch holding its namespace's whole share.
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
            res.write(all.subarray(0, 0.5 * MiB));
            let at = 0.5 * MiB;
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

// What a fetch takes is what it costs: the pack goes to a file as it arrives and is read back
// whole once (scanned and indexed from that buffer), three bytes per byte received as measured
// (bench/iso-fetch-memory.ts); before, the answer was joined whole, its pack joined again, and
// isomorphic-git joined and indexed it once more, one byte counted per byte received.
describe("an isomorphic-git fetch's memory", () => {
  const PACK_SIGNATURE = Buffer.from("PACK\0\0\0\x02", "latin1");
  const fetched = async () => {
    let peak = 0;
    const budget = new FairBudget(64 * MiB, 64 * MiB, 60_000, u => {
      peak = Math.max(peak, u.taken);
    });
    const c = await client(budget, "tenant");
    // Joins holding the pack (zlib's async inflate joins an object's output: not the pack).
    const packJoins: number[] = [];
    const concat = Buffer.concat;
    const spy = jest.spyOn(Buffer, "concat").mockImplementation((list, length) => {
      const out = concat(list, length);
      if (out.includes(PACK_SIGNATURE)) packJoins.push(out.length);
      return out;
    });
    try {
      await c.fetch();
    } finally {
      spy.mockRestore();
    }
    const dir = join((c as unknown as { opts: { gitdir: string } }).opts.gitdir, "objects/pack");
    const files = (await readdir(dir)).sort();
    const pack = files.find(f => f.endsWith(".pack"));
    return { peak, packJoins, files, packBytes: pack ? (await stat(join(dir, pack))).size : 0 };
  };

  it("is charged three bytes per byte received, the pack's among them", async () => {
    const { peak, packBytes, files } = await fetched();
    expect(packBytes).toBeGreaterThan(2 * MiB);
    expect(peak).toBeGreaterThanOrEqual(3 * packBytes);
    // The ref advertisement and the ACK lines are a few hundred bytes; steps are 1 MiB.
    expect(peak).toBeLessThanOrEqual(3 * packBytes + 2 * MiB);
    // One pack and its index, nothing left half-written.
    expect(files).toEqual([
      expect.stringMatching(/^pack-[0-9a-f]{40}\.idx$/),
      expect.stringMatching(/^pack-[0-9a-f]{40}\.pack$/),
    ]);
  });

  it("never joins the pack in memory", async () => {
    const { packJoins } = await fetched();
    expect(packJoins).toEqual([]);
  });
});
