import { Slots } from "../../../lib/controller/concurrency";

describe("Slots: render slots shared fairly between namespaces", () => {
  it("gives one namespace at most its share, and the rest to the others", () => {
    const slots = new Slots(8, 4);
    const noisy = Array.from({ length: 8 }, () => slots.take("noisy"));
    expect(noisy).toEqual([true, true, true, true, false, false, false, false]);
    expect(slots.free("noisy")).toBe(false);
    // The victim finds a slot however many renders the burst asks for.
    expect(slots.free("victim")).toBe(true);
    expect(slots.take("victim")).toBe(true);
    expect(slots.heldBy("noisy")).toBe(4);
    expect(slots.taken).toBe(5);
  });

  it("still bounds the total across namespaces", () => {
    const slots = new Slots(2, 1);
    expect([slots.take("a"), slots.take("b"), slots.take("c")]).toEqual([true, true, false]);
    slots.release("a");
    expect(slots.take("c")).toBe(true);
  });

  it("gives a released slot back to its namespace only", () => {
    const slots = new Slots(4, 2);
    slots.take("a");
    slots.release("b"); // b holds none: nothing to give back
    expect(slots.taken).toBe(1);
    slots.release("a");
    slots.release("a");
    expect(slots.taken).toBe(0);
    expect(slots.heldBy("a")).toBe(0);
  });

  it("keeps a share within the whole, and 0 as unlimited", () => {
    expect(new Slots(2, 5).perNamespace).toBe(2);
    expect(new Slots(2, 0).perNamespace).toBe(1);
    const unlimited = new Slots(0, 0);
    expect(Array.from({ length: 50 }, () => unlimited.take("a")).every(Boolean)).toBe(true);
  });
});
