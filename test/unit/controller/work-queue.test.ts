import { PermanentError } from "../../../lib/controller/permanent-error";
import { WorkQueue, type WorkQueueOptions } from "../../../lib/controller/work-queue";

const tick = (ms = 0) => new Promise(r => setTimeout(r, ms));
const fast = { concurrency: 2, baseDelayMs: 10, maxDelayMs: 40 };

// Fake timers: what happens after a delay must not depend on how busy the machine is.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

describe("WorkQueue", () => {
  it("coalesces repeated adds of a queued key into one reconcile", async () => {
    const seen: string[] = [];
    const queue = new WorkQueue(async key => void seen.push(key), { ...fast, concurrency: 1 });
    queue.add("a");
    queue.add("b");
    queue.add("b");
    queue.add("b");
    await queue.idle();
    expect(seen).toEqual(["a", "b"]);
  });

  it("never runs one key twice at once, but runs it again when added meanwhile", async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const queue = new WorkQueue(async () => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      runs += 1;
      await tick(20);
      running -= 1;
    }, fast);
    queue.add("a");
    await advance(5);
    queue.add("a");
    queue.add("a");
    await advance(100);
    await queue.idle();
    expect(maxRunning).toBe(1);
    expect(runs).toBe(2);
  });

  it("bounds concurrency across keys", async () => {
    let running = 0;
    let maxRunning = 0;
    const queue = new WorkQueue(async () => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      await tick(10);
      running -= 1;
    }, fast);
    for (const k of ["a/k", "b/k", "c/k", "d/k", "e/k"]) queue.add(k);
    const idle = queue.idle();
    await advance(100);
    await idle;
    expect(maxRunning).toBe(2);
  });

  it("retries failures with capped exponential backoff and resets after success", async () => {
    const delays: number[] = [];
    let attempts = 0;
    const queue = new WorkQueue(
      async () => {
        attempts += 1;
        if (attempts <= 4) throw new Error("transient");
      },
      { ...fast, onError: (_k, _e, retryIn) => delays.push(retryIn) },
    );
    queue.add("a");
    await advance(200);
    expect(attempts).toBe(5);
    expect(delays).toEqual([10, 20, 40, 40]);
    queue.stop();
  });

  it("caps the backoff of errors that end by themselves lower (a git server back up)", async () => {
    const delays: number[] = [];
    let attempts = 0;
    const queue = new WorkQueue(
      async () => {
        attempts += 1;
        if (attempts <= 4) throw new Error(attempts % 2 ? "server down" : "other");
      },
      {
        ...fast,
        maxDelayOf: e => (e instanceof Error && e.message === "server down" ? 15 : undefined),
        onError: (_k, _e, retryIn) => delays.push(retryIn),
      },
    );
    queue.add("a");
    await advance(200);
    expect(delays).toEqual([10, 20, 15, 40]);
    queue.stop();
  });

  it("requeues after the delay a reconcile asks for", async () => {
    const times: number[] = [];
    const queue = new WorkQueue(async () => {
      times.push(Date.now());
      return times.length < 2 ? { requeueAfterMs: 30 } : undefined;
    }, fast);
    queue.add("a");
    await advance(29);
    expect(times).toHaveLength(1);
    await advance(1);
    expect(times).toHaveLength(2);
    expect(times[1] - times[0]).toBe(30);
  });

  it("lets an immediate add override a pending delayed retry", async () => {
    let runs = 0;
    const queue = new WorkQueue(async () => {
      runs += 1;
    }, fast);
    queue.addAfter("a", 10_000);
    queue.add("a");
    await queue.idle();
    expect(runs).toBe(1);
    expect(queue.pending).toBe(0);
  });

  it("waits a delay longer than a timer can hold (a monthly sync) instead of running at once", async () => {
    let runs = 0;
    const queue = new WorkQueue(async () => {
      runs += 1;
    }, fast);
    const day = 24 * 3600_000;
    queue.addAfter("a", 40 * day); // setTimeout alone turns anything over 24.8 days into 1 ms
    await advance(day);
    expect(runs).toBe(0);
    await advance(39 * day);
    await queue.idle();
    expect(runs).toBe(1);
  });

  it("does not retry a PermanentError: the key waits for its next add", async () => {
    let attempts = 0;
    const permanent: string[] = [];
    const retried: string[] = [];
    const queue = new WorkQueue(
      async () => {
        attempts += 1;
        throw new PermanentError("UnsafeFileNames", "spec.resources has unsafe file names");
      },
      {
        ...fast,
        onError: key => retried.push(key),
        onPermanentError: (key, error) => permanent.push(`${key}: ${error.reason}`),
      },
    );
    queue.add("a");
    await queue.idle();
    expect(queue.pending).toBe(0);
    expect(attempts).toBe(1);
    expect(permanent).toEqual(["a: UnsafeFileNames"]);
    expect(retried).toEqual([]);
    queue.add("a");
    await queue.idle();
    expect(attempts).toBe(2);
    expect(queue.pending).toBe(0);
  });

  it("reports each change of its depth (queued, running, delayed) and ends at 0", async () => {
    const depths: number[] = [];
    const release: (() => void)[] = [];
    const queue = new WorkQueue(
      key =>
        new Promise<{ requeueAfterMs?: number }>(resolve =>
          release.push(() => resolve(key === "a" ? { requeueAfterMs: 50 } : {})),
        ),
      { ...fast, concurrency: 1, onDepth: depth => depths.push(depth) },
    );
    queue.add("a");
    queue.add("b");
    queue.add("b"); // coalesced: no change, nothing reported
    expect(depths).toEqual([1, 2]);
    release.shift()?.(); // a done, delayed by 50 ms; b runs
    await advance(0);
    expect(queue.pending).toBe(2);
    release.shift()?.(); // b done; only a's timer is left
    await advance(0);
    await advance(50); // a runs again
    release.shift()?.();
    await advance(0);
    queue.stop(); // a's second delay is dropped
    expect(queue.pending).toBe(0);
    expect(depths.at(-1)).toBe(0);
    expect(depths.every((d, i) => i === 0 || d !== depths[i - 1])).toBe(true);
  });
});

/**
 * A reconcile that ends only when the test says so: the order in which keys start is the
 * proof, so nothing here depends on how fast the machine is.
 */
function controlled(options: Partial<WorkQueueOptions>) {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const queue = new WorkQueue(
    key =>
      new Promise<void>(resolve => {
        started.push(key);
        finish.set(key, resolve);
      }),
    { ...fast, ...options },
  );
  const running = () => [...finish.keys()];
  /** Ends a running key and lets the queue start the next ones. */
  const end = async (key: string) => {
    const resolve = finish.get(key);
    if (!resolve) throw new Error(`${key} is not running`);
    finish.delete(key);
    resolve();
    await advance(0);
  };
  return { queue, started, running, end };
}

const burst = (namespace: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${namespace}/draft-${i}`);

describe("WorkQueue: fair between namespaces", () => {
  it("starts a victim's key at once while a 150-key burst of another namespace waits", async () => {
    const { queue, started, running } = controlled({ concurrency: 8 });
    for (const key of burst("noisy", 150)) queue.add(key);
    // The burst holds its share (half of the 8 workers), not all of them.
    expect(running()).toEqual(burst("noisy", 4));
    queue.add("victim/draft");
    expect(running()).toContain("victim/draft");
    expect(started.indexOf("victim/draft")).toBe(4);
    expect(queue.pending).toBe(151);
    queue.stop();
  });

  it("waits at most one round of the other namespaces, whatever their backlog", async () => {
    // One worker, no per-namespace cap: only the turn decides.
    const { queue, started, end } = controlled({ concurrency: 1, perNamespace: 1 });
    for (const key of [...burst("a", 50), ...burst("b", 50), ...burst("c", 50)]) queue.add(key);
    await end("a/draft-0"); // a/draft-0 ran at once; a/draft-1 has the first turn
    queue.add("victim/draft");
    for (let i = 0; i < 10 && !started.includes("victim/draft"); i++) await end(started.at(-1)!);
    // It came while a/draft-1 ran; then b, c and a had one turn each (one round), not the 147
    // keys queued before it.
    expect(started).toEqual([
      "a/draft-0",
      "a/draft-1",
      "b/draft-0",
      "c/draft-0",
      "a/draft-2",
      "victim/draft",
    ]);
    queue.stop();
  });

  it("serves namespaces in turn, each in the order its keys came", async () => {
    const { queue, started, end } = controlled({ concurrency: 1 });
    for (const key of ["a/1", "a/2", "a/3", "b/1", "/cluster-1", "b/2", "/cluster-2"])
      queue.add(key);
    while (started.length < 7) await end(started.at(-1)!);
    // a/1 ran at once; then a, b and the cluster-scoped keys ("/name", one more namespace)
    // take turns.
    expect(started).toEqual(["a/1", "a/2", "b/1", "/cluster-1", "a/3", "b/2", "/cluster-2"]);
  });

  it("tells whether a namespace other than one has keys queued or running", async () => {
    const { queue, end } = controlled({ concurrency: 1 });
    queue.add("a/1");
    expect(queue.othersActive("a")).toBe(false);
    expect(queue.othersActive("b")).toBe(true); // a/1 runs
    queue.add("b/1"); // queued behind it
    expect(queue.othersActive("a")).toBe(true);
    await end("a/1");
    expect(queue.othersActive("b")).toBe(false);
    await end("b/1");
    expect(queue.othersActive("a")).toBe(false);
    queue.stop();
  });

  it("never runs more than a namespace's share, even with idle workers", async () => {
    const { queue, running, end } = controlled({ concurrency: 6, perNamespace: 2 });
    for (const key of burst("slow", 10)) queue.add(key);
    // Workers held by a slow remote stay free for the others: 4 of the 6 are idle.
    expect(running()).toEqual(["slow/draft-0", "slow/draft-1"]);
    await end("slow/draft-0");
    expect(running()).toEqual(["slow/draft-1", "slow/draft-2"]);
    queue.stop();
  });

  it("keeps its invariants per key: a key added while running runs once more, after its turn", async () => {
    const { queue, started, running, end } = controlled({ concurrency: 2, perNamespace: 2 });
    queue.add("a/x");
    queue.add("a/x"); // coalesced with the queued one... already running: dirty
    queue.add("b/y");
    expect(running()).toEqual(["a/x", "b/y"]);
    queue.add("a/x");
    await end("a/x");
    expect(running()).toEqual(["b/y", "a/x"]);
    expect(started).toEqual(["a/x", "b/y", "a/x"]);
    await end("a/x");
    await end("b/y");
    await queue.idle();
    expect(queue.pending).toBe(0);
  });

  it("reports each namespace's keys queued or running, ending at 0 for each", async () => {
    const depths: string[] = [];
    const { queue, end } = controlled({
      concurrency: 1,
      onNamespaceDepth: (namespace, depth) => depths.push(`${namespace}=${depth}`),
    });
    queue.add("a/1");
    queue.add("a/2");
    queue.add("/c");
    queue.addAfter("b/1", 1000); // delayed: no place in the turn, not counted
    await end("a/1");
    await end("a/2");
    await end("/c");
    expect(depths).toEqual(["a=1", "a=2", "=1", "a=1", "a=0", "=0"]);
    queue.stop();
  });
});
