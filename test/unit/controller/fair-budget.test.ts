import { BudgetWaitTimeout, FairBudget } from "../../../lib/controller/fair-budget";

// The fetch memory's shape: Slots taken many at once, waited for round-robin by namespace, the
// wait bounded. Waits that end are ended by a release, never by a clock; the one timeout below
// fires only because nothing is ever released.
describe("FairBudget", () => {
  const LONG = 60_000;

  it("grants at once what fits and caps each namespace at its share", async () => {
    const budget = new FairBudget(10, 6, LONG);
    await budget.acquire("noisy", 6);
    expect(budget.slots.free("noisy", 1)).toBe(false);
    await budget.acquire("victim", 4);
    expect(budget.slots.taken).toBe(10);
  });

  it("serves waiters round-robin by namespace, each namespace in arrival order", async () => {
    const budget = new FairBudget(2, 2, LONG);
    await budget.acquire("holder", 2);
    const order: string[] = [];
    const wait = (ns: string, tag: string) => budget.acquire(ns, 1).then(() => order.push(tag));
    const all = [wait("a", "a1"), wait("a", "a2"), wait("a", "a3"), wait("b", "b1")];
    budget.release("holder", 2); // room for two: one of a, then one of b
    await Promise.resolve();
    await new Promise(setImmediate);
    expect(order).toEqual(["a1", "b1"]);
    budget.release("a", 1);
    budget.release("b", 1);
    await Promise.all(all);
    expect(order).toEqual(["a1", "b1", "a2", "a3"]);
  });

  it("lets a small waiter of another namespace past a large one that does not fit", async () => {
    const budget = new FairBudget(4, 4, LONG);
    await budget.acquire("holder", 3);
    const large = budget.acquire("big", 2);
    await budget.acquire("small", 1);
    budget.release("holder", 3);
    budget.release("small", 1);
    await large;
    expect(budget.slots.heldBy("big")).toBe(2);
  });

  it("ends a wait past its bound, saying whose share was full, and keeps no place for it", async () => {
    const budget = new FairBudget(4, 2, 5);
    await budget.acquire("noisy", 2);
    await budget.acquire("other", 2);
    const own = await budget.acquire("noisy", 1).catch(e => e);
    expect(own).toBeInstanceOf(BudgetWaitTimeout);
    expect(own.ownShareFull).toBe(true);
    const all = await budget.acquire("third", 1).catch(e => e);
    expect(all.ownShareFull).toBe(false);
    budget.release("other", 2);
    expect(budget.slots.taken).toBe(2); // nothing granted to the waiters that left
  });

  it("reports what is taken and how many wait", async () => {
    const uses: string[] = [];
    const budget = new FairBudget(1, 1, LONG, u => uses.push(`${u.taken}/${u.waiting}`));
    await budget.acquire("a", 1);
    const waiting = budget.acquire("b", 1);
    budget.release("a", 1);
    await waiting;
    expect(uses).toEqual(["1/0", "1/1", "1/0"]);
  });
});
