import { PermanentError } from "../../../lib/controller/permanent-error";
import { WorkQueue } from "../../../lib/controller/work-queue";

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
    for (const k of ["a", "b", "c", "d", "e"]) queue.add(k);
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
