import { WatchCache } from "../../../lib/controller/watch-cache";

interface Obj {
  metadata: {
    uid: string;
    namespace: string;
    name: string;
    resourceVersion: string;
    managedFields?: unknown;
    labels?: Record<string, string>;
  };
  spec: { pkg: string };
}

function obj(uid: string, rv: number, pkg = "app", owner?: string): Obj {
  return {
    metadata: {
      uid,
      namespace: "ns",
      name: `${pkg}.${uid}`,
      resourceVersion: String(rv),
      labels: owner ? { owner } : {},
      managedFields: [{ manager: "x" }],
    },
    spec: { pkg },
  };
}

const cache = () =>
  new WatchCache<Obj>({
    package: o => `${o.metadata.namespace}/${o.spec.pkg}`,
    owner: o =>
      o.metadata.labels?.owner ? `${o.metadata.namespace}/${o.metadata.labels.owner}` : undefined,
  });
const names = (list: Obj[]) => list.map(o => o.metadata.name).sort();

describe("WatchCache", () => {
  it("finds an object by namespace and name, and forgets the name when it is deleted", () => {
    const c = cache();
    c.upsert(obj("a", 1));
    expect(c.named({ namespace: "ns", name: "app.a" })?.metadata.uid).toBe("a");
    expect(c.named({ namespace: "other", name: "app.a" })).toBeUndefined();
    c.remove(obj("a", 2));
    expect(c.named({ namespace: "ns", name: "app.a" })).toBeUndefined();
  });

  it("a name deleted and made again finds the new object, whatever order the two arrive in", () => {
    const c = cache();
    const old = obj("a", 1);
    const again = { ...obj("b", 3), metadata: { ...obj("b", 3).metadata, name: "app.a" } };
    c.upsert(old);
    c.upsert(again);
    c.remove(old);
    expect(c.named({ namespace: "ns", name: "app.a" })?.metadata.uid).toBe("b");
  });

  describe("refresh (this process's own write)", () => {
    it("holds a newer answer in place of the watch's copy", () => {
      const c = cache();
      c.upsert(obj("a", 1));
      c.refresh({ ...obj("a", 5), spec: { pkg: "moved" } });
      expect(c.named({ namespace: "ns", name: "app.a" })?.metadata.resourceVersion).toBe("5");
      expect(names(c.by("package", "ns/moved"))).toEqual(["app.a"]);
      // The watch's events from before the write arrive late: they do not undo it.
      c.upsert(obj("a", 3));
      expect(c.named({ namespace: "ns", name: "app.a" })?.metadata.resourceVersion).toBe("5");
    });

    it("gives way to the watch's copy of the same version, so one copy is held", () => {
      const c = cache();
      c.upsert(obj("a", 1));
      c.refresh(obj("a", 5));
      const delivered = obj("a", 5);
      c.upsert(delivered);
      expect(c.named({ namespace: "ns", name: "app.a" })).toBe(delivered);
      // A LIST's copy of that version does not replace the watch's.
      c.upsert(obj("a", 5));
      expect(c.named({ namespace: "ns", name: "app.a" })).toBe(delivered);
    });

    it("never adds an object the watch has not delivered, or has deleted", () => {
      const c = cache();
      c.refresh(obj("a", 5));
      expect(c.size).toBe(0);
      c.upsert(obj("b", 1));
      c.remove(obj("b", 2));
      c.refresh(obj("b", 6));
      expect(c.size).toBe(0);
    });

    it("holds a created object at once, in a cache a watch or LIST feeds", () => {
      const fed = cache();
      fed.upsert(obj("a", 1));
      fed.refresh(obj("b", 2), { created: true });
      expect(fed.named({ namespace: "ns", name: "app.b" })?.metadata.uid).toBe("b");
      expect(names(fed.by("package", "ns/app"))).toEqual(["app.a", "app.b"]);
      // Nothing feeds this one (a process that runs no watch): it holds no answer of a write.
      const unfed = cache();
      unfed.refresh(obj("b", 2), { created: true });
      expect(unfed.size).toBe(0);
    });

    describe("a created object the watch never delivers", () => {
      beforeEach(() => jest.useFakeTimers({ now: new Date("2025-01-15T10:00:00Z") }));
      afterEach(() => jest.useRealTimers());

      it("is dropped after two minutes, unless the watch delivered it", () => {
        const c = cache();
        c.upsert(obj("a", 1));
        c.refresh(obj("ghost", 2), { created: true });
        c.refresh(obj("seen", 3), { created: true });
        c.upsert(obj("seen", 3));
        jest.advanceTimersByTime(119_000);
        expect(names(c.by("package", "ns/app"))).toEqual(["app.a", "app.ghost", "app.seen"]);
        jest.advanceTimersByTime(2_000);
        expect(names(c.by("package", "ns/app"))).toEqual(["app.a", "app.seen"]);
        expect(c.named({ namespace: "ns", name: "app.ghost" })).toBeUndefined();
      });
    });

    it("ignores an answer older than the copy held", () => {
      const c = cache();
      c.upsert(obj("a", 7));
      c.refresh(obj("a", 5));
      expect(c.named({ namespace: "ns", name: "app.a" })?.metadata.resourceVersion).toBe("7");
    });
  });

  it("finds objects by each index and follows their updates", () => {
    const c = cache();
    c.upsert(obj("a", 1));
    c.upsert(obj("b", 2, "app", "pv"));
    c.upsert(obj("c", 3, "other", "pv"));
    expect(names(c.by("package", "ns/app"))).toEqual(["app.a", "app.b"]);
    expect(names(c.by("owner", "ns/pv"))).toEqual(["app.b", "other.c"]);
    expect(c.by("package", "elsewhere/app")).toEqual([]);
    // Relabelled and moved: its old index entries go.
    c.upsert(obj("b", 4, "moved"));
    expect(names(c.by("owner", "ns/pv"))).toEqual(["other.c"]);
    expect(names(c.by("package", "ns/app"))).toEqual(["app.a"]);
    expect(c.by("package", "ns/app")[0].metadata.managedFields).toBeUndefined();
  });

  it("counts the objects of an index key as by() finds them", () => {
    const c = cache();
    c.upsert(obj("a", 1, "app", "pv"));
    c.upsert(obj("b", 2, "app", "pv"));
    expect(c.count("owner", "ns/pv")).toBe(2);
    c.upsert(obj("b", 3, "app"));
    expect(c.count("owner", "ns/pv")).toBe(c.by("owner", "ns/pv").length);
    expect(c.count("owner", "ns/pv")).toBe(1);
    expect(c.count("owner", "ns/none")).toBe(0);
    expect(c.count("nonexistent", "ns/pv")).toBe(0);
  });

  it("keeps the copy it holds when a LIST brings the same version again", () => {
    const c = cache();
    const watched = obj("a", 5);
    c.upsert(watched);
    c.upsert(obj("a", 5)); // the same version, from a LIST: a second copy in memory otherwise
    expect(c.by("package", "ns/app")[0]).toBe(watched);
    const newer = obj("a", 6);
    c.upsert(newer);
    expect(c.by("package", "ns/app")[0]).toBe(newer);
  });

  it("ignores an older copy and never revives a deleted object", () => {
    const c = cache();
    c.upsert(obj("a", 5, "app", "pv"));
    c.upsert(obj("a", 3)); // from a LIST served before the last event
    expect(names(c.by("owner", "ns/pv"))).toEqual(["app.a"]);
    c.remove(obj("a", 6));
    c.upsert(obj("a", 5));
    expect(c.size).toBe(0);
  });

  it("primes a namespace from one LIST shared by concurrent callers, and retries a failed one", async () => {
    const c = cache();
    let lists = 0;
    await expect(
      c.prime("ns", async () => {
        lists++;
        throw new Error("API down");
      }),
    ).rejects.toThrow("API down");
    const list = async () => {
      lists++;
      return [obj("a", 1)];
    };
    await Promise.all([c.prime("ns", list), c.prime("ns", list)]);
    await c.prime("ns", list);
    expect(lists).toBe(2);
    expect(c.size).toBe(1);
  });
});
