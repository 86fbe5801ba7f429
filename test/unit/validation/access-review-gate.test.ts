import {
  DEFAULT_REVIEW_CACHE_SECONDS,
  ReviewAnswers,
  ReviewGate,
  reviewGateSettings,
  reviewKey,
  ReviewWaitTimeout,
} from "../../../lib/validation/access-review-gate";

/** A review the test answers when it chooses. */
interface Pending {
  who: string;
  answer: (allowed: boolean) => void;
  fail: (error: Error) => void;
}

function fakeReviews() {
  const started: Pending[] = [];
  const ask = (who: string) => () =>
    new Promise<boolean>((resolve, reject) => {
      started.push({ who, answer: resolve, fail: reject });
    });
  return { started, ask };
}

const settings = (over: Partial<ReturnType<typeof reviewGateSettings>> = {}) => ({
  ...reviewGateSettings({}, 60_000),
  ...over,
});

const flush = () => new Promise(resolve => setImmediate(resolve));
/** A review the test leaves waiting: its timeout later must not be an unhandled rejection. */
const ignore = (answer: Promise<boolean>) => void answer.catch(() => undefined);

describe("ReviewGate: reviews in flight, shared by user", () => {
  it("starts a second user's single review while a first user's hundred wait", async () => {
    const gate = new ReviewGate(settings({ inFlight: 3, perNamespace: 2 }));
    const { started, ask } = fakeReviews();
    const aliceAnswers = Array.from({ length: 100 }, (_, i) =>
      gate.answer({ username: "alice" }, { name: `cm-${i}` }, ask("alice")),
    );
    await flush();
    const bobAnswer = gate.answer({ username: "bob" }, { name: "cm-0" }, ask("bob"));
    await flush();
    // Alice holds her share; the slot she may not take is bob's at once.
    expect(started.map(p => p.who)).toEqual(["alice", "alice", "bob"]);
    started[2].answer(true);
    await expect(bobAnswer).resolves.toBe(true);
    // Alice's reviews go on, two at a time.
    for (let i = 0; i < 100; i++) {
      await flush();
      expect(started.filter(p => p.who === "alice")).toHaveLength(Math.min(100, i + 2));
      started.filter(p => p.who === "alice")[i].answer(false);
    }
    await expect(Promise.all(aliceAnswers)).resolves.toEqual(Array(100).fill(false));
  });

  // Keyed by user, two ServiceAccounts of one tenant held every slot of the process.
  it("shares one namespace's slots between all the users asking about it", async () => {
    const gate = new ReviewGate(settings({ inFlight: 3, perNamespace: 2 }));
    const { started, ask } = fakeReviews();
    for (const who of ["sa-1", "sa-2"])
      for (let i = 0; i < 10; i++)
        ignore(
          gate.answer({ username: who }, { namespace: "team-a", name: `${who}-${i}` }, ask(who)),
        );
    ignore(gate.answer({ username: "bob" }, { namespace: "team-b", name: "cm" }, ask("bob")));
    await flush();
    expect(started.map(p => p.who)).toEqual(["sa-1", "sa-1", "bob"]);
  });

  it("caps one user's reviews in flight below the process's limit", async () => {
    const gate = new ReviewGate(settings({ inFlight: 4, perNamespace: 2 }));
    const { started, ask } = fakeReviews();
    for (let i = 0; i < 10; i++) ignore(gate.answer({ username: "alice" }, { i }, ask("alice")));
    ignore(gate.answer({ username: "bob" }, { i: 0 }, ask("bob")));
    await flush();
    expect(started.map(p => p.who)).toEqual(["alice", "alice", "bob"]);
  });

  it("fails a review that gets no turn within the wait, naming the settings", async () => {
    const gate = new ReviewGate(settings({ inFlight: 1, perNamespace: 1, waitMs: 1 }));
    const { ask } = fakeReviews();
    ignore(gate.answer({ username: "alice" }, { i: 0 }, ask("alice")));
    await expect(gate.answer({ username: "bob" }, { i: 0 }, ask("bob"))).rejects.toThrow(
      ReviewWaitTimeout,
    );
    await expect(gate.answer({ username: "bob" }, { i: 0 }, ask("bob"))).rejects.toThrow(
      /PORCH_PEPR_ACCESS_REVIEWS/,
    );
  });
});

describe("ReviewGate: answers kept a few seconds", () => {
  it("asks a repeated question once within the time, and again after it", async () => {
    let now = 1_000;
    const gate = new ReviewGate(settings({ cacheMs: 5_000 }), () => now);
    let asked = 0;
    const ask = async () => (asked++, true);
    const user = { username: "alice", groups: ["b", "a"] };
    await gate.answer(user, { verb: "get" }, ask);
    await gate.answer({ username: "alice", groups: ["a", "b"] }, { verb: "get" }, ask);
    expect(asked).toBe(1);
    now += 5_000;
    await gate.answer(user, { verb: "get" }, ask);
    expect(asked).toBe(2);
  });

  it("asks the same question in flight once", async () => {
    const gate = new ReviewGate(settings());
    const { started, ask } = fakeReviews();
    const first = gate.answer({ username: "alice" }, { verb: "get" }, ask("alice"));
    const second = gate.answer({ username: "alice" }, { verb: "get" }, ask("alice"));
    await flush();
    expect(started).toHaveLength(1);
    started[0].answer(true);
    await expect(Promise.all([first, second])).resolves.toEqual([true, true]);
  });

  it("never shares an answer between users, groups or questions", async () => {
    const gate = new ReviewGate(settings());
    let asked = 0;
    const ask = async () => (asked++, true);
    await gate.answer({ username: "alice" }, { verb: "get" }, ask);
    await gate.answer({ username: "alice", groups: ["admins"] }, { verb: "get" }, ask);
    await gate.answer({ username: "bob" }, { verb: "get" }, ask);
    await gate.answer({ username: "alice" }, { verb: "list" }, ask);
    await gate.answer({ username: "alice", extra: { scopes: ["x"] } }, { verb: "get" }, ask);
    expect(asked).toBe(5);
  });

  it("keeps no failure: a review that failed is asked again", async () => {
    const gate = new ReviewGate(settings());
    const { started, ask } = fakeReviews();
    const first = gate.answer({ username: "alice" }, { verb: "get" }, ask("alice"));
    await flush();
    started[0].fail(new Error("connection reset"));
    await expect(first).rejects.toThrow("connection reset");
    ignore(gate.answer({ username: "alice" }, { verb: "get" }, ask("alice")));
    await flush();
    expect(started).toHaveLength(2);
  });

  it("keeps at most its number of answers, dropping the oldest", () => {
    const answers = new ReviewAnswers(5_000, 2, () => 0);
    answers.set("a", true);
    answers.set("b", false);
    answers.set("c", true);
    expect(answers.size).toBe(2);
    expect(answers.get("a")).toBeUndefined();
    expect(answers.get("b")).toBe(false);
    expect(answers.get("c")).toBe(true);
  });

  it("orders groups and extra keys out of the key", () => {
    expect(reviewKey({ username: "u", groups: ["b", "a"], extra: { y: ["1"], x: ["2"] } }, 1)).toBe(
      reviewKey({ username: "u", groups: ["a", "b"], extra: { x: ["2"], y: ["1"] } }, 1),
    );
  });
});

describe("reviewGateSettings", () => {
  it("defaults to 16 in flight, 8 per user, answers kept 5 s", () => {
    expect(reviewGateSettings({}, 7_000)).toMatchObject({
      inFlight: 16,
      perNamespace: 8,
      cacheMs: DEFAULT_REVIEW_CACHE_SECONDS * 1000,
      waitMs: 7_000,
      warnings: [],
    });
  });

  it("reads the settings, 0 s turning the cache off, and names a bad one", () => {
    expect(
      reviewGateSettings(
        {
          PORCH_PEPR_ACCESS_REVIEWS: "4",
          PORCH_PEPR_ACCESS_REVIEWS_PER_NAMESPACE: "1",
          PORCH_PEPR_ACCESS_REVIEW_CACHE_SECONDS: "0",
        },
        7_000,
      ),
    ).toMatchObject({ inFlight: 4, perNamespace: 1, cacheMs: 0, warnings: [] });
    expect(
      reviewGateSettings({ PORCH_PEPR_ACCESS_REVIEW_CACHE_SECONDS: "3600" }, 7_000).warnings,
    ).toEqual([expect.stringContaining("PORCH_PEPR_ACCESS_REVIEW_CACHE_SECONDS")]);
  });
});
