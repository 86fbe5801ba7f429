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
