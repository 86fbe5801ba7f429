import { keyOf, Manager, Queue, WatchedObject } from "../../../lib/controller/manager";

interface Obj extends WatchedObject {
  spec?: { upstream?: string; files?: Record<string, string> };
  status?: { ready?: boolean };
}

const obj = (name: string, extra: Partial<Obj> = {}, rv = "1"): Obj => ({
  metadata: {
    name,
    namespace: "ns",
    uid: `uid-${name}`,
    resourceVersion: rv,
    managedFields: [{ manager: "kubectl" }],
  },
  ...extra,
});

function recordingQueue(log: string[], name: string): Queue {
  return {
    add: key => log.push(`${name} ${key}`),
    addAfter: (key, ms) => log.push(`${name} ${key} after ${ms}`),
  };
}

function setup() {
  const log: string[] = [];
  const ctx = { tag: "ctx" };
  const manager = new Manager(
    () => ctx,
    spec => recordingQueue(log, spec.name),
  );
  return { log, ctx, manager };
}

const fail = (e: unknown) => {
  throw e;
};

describe("Manager", () => {
  it("keeps one slim copy per kind: managedFields and what the kind drops, removed in place", () => {
    const { manager } = setup();
    const cache = manager.kind<Obj>("Resources", {
      slim: o => delete o.spec?.files,
      indexers: { name: keyOf },
    });
    const delivered = obj("a", { spec: { upstream: "u", files: { Kptfile: "big" } } });
    manager.onEvent("Resources", delivered, "ADDED", fail);
    const held = cache.by("name", "ns/a")[0];
    // The watch's own copy is the same object: slimmed for both.
    expect(held).toBe(delivered);
    expect(delivered.metadata?.managedFields).toBeUndefined();
    expect(delivered.spec).toEqual({ upstream: "u" });
  });

  it("enqueues the primary object's key and the keys each watch maps an event to", () => {
    const { manager, log, ctx } = setup();
    manager.kind("Variant");
    manager.kind("Revision");
    const seen: unknown[] = [];
    manager.controller({
      name: "variants",
      for: "Variant",
      watches: [
        {
          kind: "Revision",
          map: (o, phase, c) => {
            seen.push(c);
            return [`ns/owner-of-${o.metadata?.name}-${phase}`];
          },
        },
      ],
      reconcile: async () => undefined,
    });
    manager.onEvent("Variant", obj("v"), "ADDED", fail);
    manager.onEvent("Revision", obj("r"), "MODIFIED", fail);
    expect(log).toEqual(["variants ns/v", "variants ns/owner-of-r-MODIFIED"]);
    expect(seen).toEqual([ctx]);
  });

  it("costs no reconcile for an update that leaves the relevant part unchanged", () => {
    const { manager, log } = setup();
    manager.kind<Obj>("Variant");
    manager.controller({
      name: "variants",
      for: "Variant",
      relevance: o => (o as Obj).spec,
      reconcile: async () => undefined,
    });
    manager.onEvent("Variant", obj("v", { spec: { upstream: "a" } }, "1"), "ADDED", fail);
    manager.onEvent(
      "Variant",
      obj("v", { spec: { upstream: "a" }, status: { ready: true } }, "2"),
      "MODIFIED",
      fail,
    );
    manager.onEvent("Variant", obj("v", { spec: { upstream: "b" } }, "3"), "MODIFIED", fail);
    expect(log).toEqual(["variants ns/v", "variants ns/v"]);
  });

  it("forgets a deleted object, so its re-creation counts again", () => {
    const { manager, log } = setup();
    const cache = manager.kind<Obj>("Variant", { indexers: { name: keyOf } });
    const forgotten: string[] = [];
    manager.controller({
      name: "variants",
      for: "Variant",
      relevance: o => (o as Obj).spec,
      forget: o => forgotten.push(keyOf(o)),
      reconcile: async () => undefined,
    });
    manager.onEvent("Variant", obj("v", { spec: { upstream: "a" } }), "ADDED", fail);
    manager.onEvent("Variant", obj("v", { spec: { upstream: "a" } }, "2"), "DELETED", fail);
    expect(cache.by("name", "ns/v")).toEqual([]);
    expect(forgotten).toEqual(["ns/v"]);
    expect(log).toEqual(["variants ns/v", "variants ns/v"]);
  });

  it("coalesces a watch's events over its delay", () => {
    const { manager, log } = setup();
    manager.kind("Set");
    manager.kind("Variant");
    manager.controller({
      name: "sets",
      for: "Set",
      watches: [{ kind: "Variant", map: () => ["ns/set"], delayMs: 1000 }],
      reconcile: async () => undefined,
    });
    manager.onEvent("Variant", obj("v"), "ADDED", fail);
    expect(log).toEqual(["sets ns/set after 1000"]);
  });

  it("coalesces over the delay a function gives for the event", () => {
    const { manager, log } = setup();
    manager.kind("Set");
    manager.kind("Variant");
    manager.controller({
      name: "sets",
      for: "Set",
      watches: [
        {
          kind: "Variant",
          map: o => [`ns/${(o as Obj).spec?.upstream}`],
          delayMs: o => ((o as Obj).spec?.upstream === "big" ? 9000 : 0),
        },
      ],
      reconcile: async () => undefined,
    });
    manager.onEvent("Variant", obj("a", { spec: { upstream: "big" } }), "ADDED", fail);
    manager.onEvent("Variant", obj("b", { spec: { upstream: "small" } }), "ADDED", fail);
    expect(log).toEqual(["sets ns/big after 9000", "sets ns/small"]);
  });

  it("lets every controller see an event even when one controller's mapping throws", () => {
    const { manager, log } = setup();
    manager.kind("Revision");
    manager.kind("A");
    manager.kind("B");
    const boom = new Error("boom");
    manager.controller({
      name: "a",
      for: "A",
      watches: [
        {
          kind: "Revision",
          map: () => {
            throw boom;
          },
        },
      ],
      reconcile: async () => undefined,
    });
    manager.controller({
      name: "b",
      for: "B",
      watches: [{ kind: "Revision", map: () => ["ns/b"] }],
      reconcile: async () => undefined,
    });
    const errors: unknown[] = [];
    manager.onEvent("Revision", obj("r"), "ADDED", e => errors.push(e));
    expect(errors).toEqual([boom]);
    expect(log).toEqual(["b ns/b"]);
  });

  it("refuses a controller on an undeclared kind and a kind declared twice", () => {
    const { manager } = setup();
    manager.kind("A");
    expect(() => manager.kind("A")).toThrow("declared twice");
    expect(() =>
      manager.controller({ name: "x", for: "Nope", reconcile: async () => undefined }),
    ).toThrow("not declared");
  });

  it("runs a reconcile with the context, then the controller's after-step", async () => {
    const calls: string[] = [];
    let run: ((key: string) => Promise<unknown>) | undefined;
    const ctx = { tag: "ctx" };
    const manager = new Manager(
      () => ctx,
      (_spec, reconcile) => {
        run = reconcile;
        return { add: () => undefined, addAfter: () => undefined };
      },
    );
    manager.kind("A");
    manager.controller({
      name: "a",
      for: "A",
      reconcile: async (key, c) => void calls.push(`reconcile ${key} ${c.tag}`),
      after: async c => void calls.push(`after ${c.tag}`),
    });
    await run?.("ns/x");
    expect(calls).toEqual(["reconcile ns/x ctx", "after ctx"]);
  });

  it("gives a controller the process does not run a queue that drops keys, and no events", () => {
    const log: string[] = [];
    const manager = new Manager(
      () => ({}),
      spec => recordingQueue(log, spec.name),
      name => name !== "off",
    );
    manager.kind("A");
    const off = manager.controller({ name: "off", for: "A", reconcile: async () => undefined });
    manager.controller({ name: "on", for: "A", reconcile: async () => undefined });
    manager.onEvent("A", obj("x"), "ADDED", fail);
    off.add("ns/y");
    manager.queue("off").addAfter("ns/z", 5);
    expect(log).toEqual(["on ns/x"]);
  });
});
