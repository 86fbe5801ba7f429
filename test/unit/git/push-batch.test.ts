// The per-repository write batcher on a fake push: what goes together, what waits, and who
// hears which verdict. The real pushes (both clients) are in push-batch-server.test.ts.
import type { RefUpdate, RefVerdicts } from "../../../lib/git/client";
import { GitStoreError, PushRejectedError } from "../../../lib/git/errors";
import {
  lingerMsFromEnv,
  PushBatcher,
  together,
  type BatchLimits,
  type Linger,
} from "../../../lib/git/push-batch";

const oid = (n: number) => n.toString(16).padStart(40, "0");

/** A batcher whose batches run only when the test says, on a push that records what it got. */
function harness(
  limits: BatchLimits = { maxRefs: 100, maxCommandBytes: 1 << 20 },
  linger?: Linger,
) {
  const pushes: RefUpdate[][] = [];
  const atomic: boolean[] = [];
  const runs: (() => Promise<RefUpdate[]>)[] = [];
  let answer: (updates: RefUpdate[]) => RefVerdicts = u => new Map(u.map(x => [x.ref, undefined]));
  const batcher = new PushBatcher(
    limits,
    "https://git.example/repo.git",
    run => runs.push(run),
    async (updates, isAtomic) => {
      pushes.push(updates);
      atomic.push(isAtomic);
      return answer(updates);
    },
    linger,
  );
  return {
    batcher,
    pushes,
    atomic,
    /** Runs the batch scheduled next; returns what landed. */
    next: () => runs.shift()!(),
    scheduled: () => runs.length,
    answerWith: (f: typeof answer) => (answer = f),
  };
}

/** A promise's outcome, once it has one. */
const outcome = (p: Promise<void>) =>
  p.then(
    () => "landed",
    (e: unknown) => e,
  );

describe("PushBatcher", () => {
  it("sends the writers that arrive before the batch runs in one push, one refspec each", async () => {
    const h = harness();
    const writers = Array.from({ length: 5 }, (_, i) =>
      outcome(
        h.batcher.submit([[{ ref: `refs/heads/drafts/p${i}/ws`, oid: oid(i + 1), expect: null }]]),
      ),
    );
    expect(h.scheduled()).toBe(1);
    const landed = await h.next();
    expect(await Promise.all(writers)).toEqual(Array(5).fill("landed"));
    expect(h.pushes).toHaveLength(1);
    expect(h.pushes[0].map(u => u.ref)).toEqual(
      [0, 1, 2, 3, 4].map(i => `refs/heads/drafts/p${i}/ws`),
    );
    expect(landed).toHaveLength(5);
    expect(h.scheduled()).toBe(0);
  });

  it("fails only the writer whose ref was refused; the others land", async () => {
    const h = harness();
    h.answerWith(
      u =>
        new Map(
          u.map(x => [
            x.ref,
            x.ref.includes("p1") ? { moved: true, says: "[rejected] (stale info)" } : undefined,
          ]),
        ),
    );
    const writers = [0, 1, 2].map(i =>
      outcome(
        h.batcher.submit([[{ ref: `refs/heads/drafts/p${i}/ws`, oid: oid(i + 1), expect: null }]]),
      ),
    );
    const landed = await h.next();
    const [a, b, c] = await Promise.all(writers);
    expect(a).toBe("landed");
    expect(c).toBe("landed");
    expect(b).toBeInstanceOf(PushRejectedError);
    expect((b as Error).message).toBe(
      "push to https://git.example/repo.git was rejected: refs/heads/drafts/p1/ws: [rejected] (stale info)",
    );
    expect(landed.map(u => u.ref)).toEqual(["refs/heads/drafts/p0/ws", "refs/heads/drafts/p2/ws"]);
  });

  it("gives a refusal that is not the remote moving as a failure, not a retry", async () => {
    const h = harness();
    h.answerWith(u => new Map(u.map(x => [x.ref, { moved: false, says: "hook declined" }])));
    const w = outcome(
      h.batcher.submit([[{ ref: "refs/heads/drafts/a/ws", oid: oid(1), expect: null }]]),
    );
    await h.next();
    const err = await w;
    expect(err).toBeInstanceOf(GitStoreError);
    expect(err).not.toBeInstanceOf(PushRejectedError);
    expect((err as GitStoreError).code).toBe("Transport");
  });

  it("fails every writer of a batch whose push failed as a whole", async () => {
    const h = harness();
    const boom = new GitStoreError("Unavailable", "git server is unavailable");
    h.answerWith(() => {
      throw boom;
    });
    const writers = [0, 1].map(i =>
      outcome(
        h.batcher.submit([[{ ref: `refs/heads/drafts/p${i}/ws`, oid: oid(i + 1), expect: null }]]),
      ),
    );
    expect(await h.next()).toEqual([]);
    expect(await Promise.all(writers)).toEqual([boom, boom]);
  });

  it("counts a ref the push did not report as refused", async () => {
    const h = harness();
    h.answerWith(() => new Map());
    const w = outcome(
      h.batcher.submit([[{ ref: "refs/heads/drafts/a/ws", oid: oid(1), expect: null }]]),
    );
    await h.next();
    expect(String(await w)).toMatch(/the push did not report this ref/);
  });

  it("bounds a push by refs and by command bytes; the rest go in the next", async () => {
    const byRefs = harness({ maxRefs: 2, maxCommandBytes: 1 << 20 });
    const all = [0, 1, 2, 3, 4].map(i =>
      outcome(
        byRefs.batcher.submit([
          [{ ref: `refs/heads/drafts/p${i}/ws`, oid: oid(i + 1), expect: null }],
        ]),
      ),
    );
    while (byRefs.scheduled() > 0) await byRefs.next();
    expect(await Promise.all(all)).toEqual(Array(5).fill("landed"));
    expect(byRefs.pushes.map(p => p.length)).toEqual([2, 2, 1]);

    // Each of these costs 2 x 41 + 2 x 24 + 24 = 154 bytes: two fit in 400, three do not.
    const byBytes = harness({ maxRefs: 100, maxCommandBytes: 400 });
    for (const i of [0, 1, 2])
      void byBytes.batcher.submit([
        [{ ref: `refs/heads/drafts/p${i}/w`, oid: oid(i + 1), expect: null }],
      ]);
    while (byBytes.scheduled() > 0) await byBytes.next();
    expect(byBytes.pushes.map(p => p.length)).toEqual([2, 1]);
  });

  it("still sends one writer whose updates alone are over the bounds", async () => {
    const h = harness({ maxRefs: 1, maxCommandBytes: 10 });
    const w = outcome(
      h.batcher.submit([
        [
          { ref: "refs/tags/a/v1", oid: oid(1), expect: null },
          { ref: "refs/heads/main", oid: oid(1), expect: oid(9) },
        ],
      ]),
    );
    await h.next();
    expect(await w).toBe("landed");
    expect(h.pushes).toHaveLength(1);
  });

  it("merges a writer that builds on a queued update of the same ref: one update, leased on the first", async () => {
    const h = harness();
    const head = oid(9);
    const first = outcome(
      h.batcher.submit([
        [
          { ref: "refs/tags/a/v1", oid: oid(1), expect: null },
          { ref: "refs/heads/main", oid: oid(1), expect: head },
        ],
        [{ ref: "refs/heads/proposed/a/ws", oid: null, expect: oid(5) }],
      ]),
    );
    expect(h.batcher.queuedRefs().get("refs/heads/main")).toBe(oid(1));
    const second = outcome(
      h.batcher.submit([
        [
          { ref: "refs/tags/b/v1", oid: oid(2), expect: null },
          { ref: "refs/heads/main", oid: oid(2), expect: oid(1) },
        ],
        [{ ref: "refs/heads/proposed/b/ws", oid: null, expect: oid(6) }],
      ]),
    );
    await h.next();
    expect(h.pushes[0]).toEqual([
      { ref: "refs/tags/a/v1", oid: oid(1), expect: null },
      { ref: "refs/heads/main", oid: oid(2), expect: head },
      { ref: "refs/tags/b/v1", oid: oid(2), expect: null },
    ]);
    // The proposals go once their tags and the branch landed: both in the next push.
    expect(h.scheduled()).toBe(1);
    await h.next();
    expect(h.pushes[1].map(u => u.ref)).toEqual([
      "refs/heads/proposed/a/ws",
      "refs/heads/proposed/b/ws",
    ]);
    expect(await Promise.all([first, second])).toEqual(["landed", "landed"]);
  });

  it("fails both writers merged on a ref that was refused, and sends no later stage of theirs", async () => {
    const h = harness();
    h.answerWith(
      u =>
        new Map(
          u.map(x => [
            x.ref,
            x.ref === "refs/heads/main" ? { moved: true, says: "stale info" } : undefined,
          ]),
        ),
    );
    const a = outcome(
      h.batcher.submit([
        [{ ref: "refs/heads/main", oid: oid(1), expect: oid(9) }],
        [{ ref: "refs/heads/proposed/a/ws", oid: null, expect: oid(5) }],
      ]),
    );
    const b = outcome(
      h.batcher.submit([
        [{ ref: "refs/heads/main", oid: oid(2), expect: oid(1) }],
        [{ ref: "refs/heads/proposed/b/ws", oid: null, expect: oid(6) }],
      ]),
    );
    await h.next();
    const [ea, eb] = await Promise.all([a, b]);
    expect(ea).toBeInstanceOf(PushRejectedError);
    expect(eb).toBeInstanceOf(PushRejectedError);
    expect(h.scheduled()).toBe(0);
    expect(h.pushes).toHaveLength(1);
  });

  it("keeps a writer that does not build on the batch's value of its ref for the next push, in order", async () => {
    const h = harness();
    void h.batcher.submit([[{ ref: "refs/heads/main", oid: oid(1), expect: oid(9) }]]);
    // Planned on the old head too: it cannot join (one update per ref), nor pass a later
    // writer of the same ref.
    const late = outcome(
      h.batcher.submit([[{ ref: "refs/heads/main", oid: oid(2), expect: oid(9) }]]),
    );
    const other = outcome(
      h.batcher.submit([[{ ref: "refs/heads/drafts/x/ws", oid: oid(3), expect: null }]]),
    );
    await h.next();
    expect(h.pushes[0].map(u => u.oid)).toEqual([oid(1), oid(3)]);
    expect(await other).toBe("landed");
    h.answerWith(u => new Map(u.map(x => [x.ref, { moved: true, says: "stale info" }])));
    await h.next();
    expect(h.pushes[1]).toEqual([{ ref: "refs/heads/main", oid: oid(2), expect: oid(9) }]);
    expect(await late).toBeInstanceOf(PushRejectedError);
  });

  it("holds a writer back while an earlier one still has to move the same ref in a later stage", async () => {
    const h = harness();
    // Two publishes (tag, then branch) and a deletion planned on the second's branch commit.
    const publishes = [1, 2].map(i =>
      outcome(
        h.batcher.submit([
          [{ ref: `refs/tags/p${i}/v1`, oid: oid(i), expect: null }],
          [{ ref: "refs/heads/main", oid: oid(i), expect: oid(i - 1 || 9) }],
        ]),
      ),
    );
    const removal = outcome(
      h.batcher.submit([[{ ref: "refs/heads/main", oid: oid(3), expect: oid(2) }]]),
    );
    await h.next();
    expect(h.pushes[0].map(u => u.ref)).toEqual(["refs/tags/p1/v1", "refs/tags/p2/v1"]);
    await h.next();
    expect(h.pushes[1]).toEqual([{ ref: "refs/heads/main", oid: oid(3), expect: oid(9) }]);
    expect(await Promise.all([...publishes, removal])).toEqual(["landed", "landed", "landed"]);
    expect(h.atomic).toEqual([false, false]);
  });

  it("sends all stages of a writer alone in its batch in one atomic push", async () => {
    const h = harness();
    const publish = outcome(
      h.batcher.submit([
        [{ ref: "refs/tags/a/v1", oid: oid(1), expect: null }],
        [{ ref: "refs/heads/main", oid: oid(1), expect: oid(9) }],
        [{ ref: "refs/heads/proposed/a/ws", oid: null, expect: oid(5) }],
      ]),
    );
    const landed = await h.next();
    expect(h.pushes).toHaveLength(1);
    expect(h.pushes[0].map(u => u.ref)).toEqual([
      "refs/tags/a/v1",
      "refs/heads/main",
      "refs/heads/proposed/a/ws",
    ]);
    expect(h.atomic).toEqual([true]);
    expect(landed).toHaveLength(3);
    expect(await publish).toBe("landed");
    expect(h.scheduled()).toBe(0);
  });

  it("sends several publishes' tags and chained branch commit in one atomic push, tags first, apart from plain stages", async () => {
    const h = harness();
    const publish = (p: string, commit: number, head: number) =>
      outcome(
        h.batcher.submit([
          together([
            { ref: `refs/tags/${p}/v1`, oid: oid(commit), expect: null },
            { ref: "refs/heads/main", oid: oid(commit), expect: oid(head) },
          ]),
          [{ ref: `refs/heads/proposed/${p}/ws`, oid: null, expect: oid(commit + 10) }],
        ]),
      );
    const a = publish("a", 1, 9);
    const draft = outcome(
      h.batcher.submit([[{ ref: "refs/heads/drafts/x/ws", oid: oid(3), expect: null }]]),
    );
    const b = publish("b", 2, 1);
    await h.next();
    expect(h.pushes[0]).toEqual([
      { ref: "refs/tags/a/v1", oid: oid(1), expect: null },
      { ref: "refs/tags/b/v1", oid: oid(2), expect: null },
      { ref: "refs/heads/main", oid: oid(2), expect: oid(9) },
    ]);
    // The draft, which need not land with anything, waits for the next push: the proposals'.
    await h.next();
    expect(h.pushes[1].map(u => u.ref)).toEqual([
      "refs/heads/proposed/a/ws",
      "refs/heads/proposed/b/ws",
      "refs/heads/drafts/x/ws",
    ]);
    expect(h.atomic).toEqual([true, false]);
    expect(await Promise.all([a, b, draft])).toEqual(["landed", "landed", "landed"]);
  });

  it("refuses every publish of an atomic push one of whose refs was refused; no proposal goes", async () => {
    const h = harness();
    h.answerWith(
      u =>
        new Map(
          u.map(x => [
            x.ref,
            { moved: true, says: x.ref === "refs/tags/b/v1" ? "stale info" : "atomic push failed" },
          ]),
        ),
    );
    const writers = [
      ["a", 1, 9],
      ["b", 2, 1],
    ].map(([p, commit, head]) =>
      outcome(
        h.batcher.submit([
          together([
            { ref: `refs/tags/${p}/v1`, oid: oid(commit as number), expect: null },
            { ref: "refs/heads/main", oid: oid(commit as number), expect: oid(head as number) },
          ]),
          [{ ref: `refs/heads/proposed/${p}/ws`, oid: null, expect: oid(5) }],
        ]),
      ),
    );
    await h.next();
    // Both plan again: a's commit stays out of the branch, as b's chained on it.
    for (const e of await Promise.all(writers)) expect(e).toBeInstanceOf(PushRejectedError);
    expect(h.pushes).toHaveLength(1);
    expect(h.scheduled()).toBe(0);
  });

  it("sends nothing for a queued ref that a later writer deletes before it was pushed", async () => {
    const h = harness();
    const create = outcome(
      h.batcher.submit([[{ ref: "refs/heads/drafts/a/ws", oid: oid(1), expect: null }]]),
    );
    const remove = outcome(
      h.batcher.submit([[{ ref: "refs/heads/drafts/a/ws", oid: null, expect: oid(1) }]]),
    );
    const landed = await h.next();
    expect(h.pushes).toEqual([]);
    expect(await Promise.all([create, remove])).toEqual(["landed", "landed"]);
    expect(landed).toEqual([{ ref: "refs/heads/drafts/a/ws", oid: null, expect: null }]);
  });
});

describe("PushBatcher lingering for a busy repository's writers", () => {
  const draft = (i: number) => [
    [{ ref: `refs/heads/drafts/p${i}/ws`, oid: oid(i + 1), expect: null }],
  ];
  // The clock is jest's: the linger's bound is reached when the test advances it, never by
  // how fast the machine runs.
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("sends an idle repository's single write at once", () => {
    const h = harness(undefined, { maxMs: 10_000, coming: () => false });
    void h.batcher.submit(draft(0));
    expect(h.scheduled()).toBe(1);
  });

  it("waits while writers are on their way, and goes when the last of them handed its update in", async () => {
    let coming = 3;
    const h = harness(undefined, { maxMs: 10_000, coming: () => coming > 0 });
    const writers = [0, 1, 2].map(i => {
      coming--;
      const writer = outcome(h.batcher.submit(draft(i)));
      // Scheduled only once the last of them is in.
      expect(h.scheduled()).toBe(coming > 0 ? 0 : 1);
      return writer;
    });
    await h.next();
    expect(await Promise.all(writers)).toEqual(["landed", "landed", "landed"]);
    expect(h.pushes.map(p => p.length)).toEqual([3]);
  });

  it("holds the batch while writers are on their way; a writer that gives up lets it go when asked again", () => {
    let coming = true;
    const h = harness(undefined, { maxMs: 10_000, coming: () => coming });
    void h.batcher.submit(draft(0));
    void h.batcher.submit(draft(1));
    expect(h.scheduled()).toBe(0);
    h.batcher.reconsider();
    expect(h.scheduled()).toBe(0);
    coming = false;
    h.batcher.reconsider();
    expect(h.scheduled()).toBe(1);
  });

  it("waits at most maxMs for writers that do not come", async () => {
    const h = harness(undefined, { maxMs: 5_000, coming: () => true });
    const first = outcome(h.batcher.submit(draft(0)));
    jest.advanceTimersByTime(4_999);
    void h.batcher.submit(draft(1));
    expect(h.scheduled()).toBe(0);
    jest.advanceTimersByTime(1);
    expect(h.scheduled()).toBe(1);
    await h.next();
    expect(await first).toBe("landed");
    expect(h.pushes.map(p => p.length)).toEqual([2]);
  });

  it("goes at once when the batch is full, however many writers are still coming", () => {
    const h = harness(
      { maxRefs: 3, maxCommandBytes: 1 << 20 },
      { maxMs: 10_000, coming: () => true },
    );
    void h.batcher.submit(draft(0));
    void h.batcher.submit(draft(1));
    expect(h.scheduled()).toBe(0);
    void h.batcher.submit(draft(2));
    expect(h.scheduled()).toBe(1);
  });

  it("waits again, after a push, for the writers still coming", async () => {
    let coming = true;
    const h = harness(
      { maxRefs: 2, maxCommandBytes: 1 << 20 },
      { maxMs: 10_000, coming: () => coming },
    );
    void h.batcher.submit(draft(0));
    void h.batcher.submit(draft(1));
    void h.batcher.submit(draft(2));
    await h.next();
    expect(h.pushes.map(p => p.length)).toEqual([2]);
    expect(h.scheduled()).toBe(0);
    coming = false;
    void h.batcher.submit(draft(3));
    expect(h.scheduled()).toBe(1);
    await h.next();
    expect(h.pushes.map(p => p.length)).toEqual([2, 2]);
  });

  it("reads its bound from PORCH_PEPR_GIT_PUSH_LINGER_MS, and names a setting that is not a count", () => {
    expect(lingerMsFromEnv({})).toEqual({ value: 10_000 });
    expect(lingerMsFromEnv({ PORCH_PEPR_GIT_PUSH_LINGER_MS: "250" })).toEqual({ value: 250 });
    const bad = lingerMsFromEnv({ PORCH_PEPR_GIT_PUSH_LINGER_MS: "-1" });
    expect(bad.value).toBe(10_000);
    expect(bad.warning).toMatch(/PORCH_PEPR_GIT_PUSH_LINGER_MS="-1" is not a count/);
  });
});
