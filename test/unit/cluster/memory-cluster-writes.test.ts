import type { WatchPhase } from "../../../lib/cluster/port";
import { MemoryCluster } from "../../support/memory-cluster";
import { PV, pv, ref, rejection } from "./helpers";

describe("MemoryCluster: generation and resourceVersion on writes", () => {
  it("bumps generation only when something other than metadata or status changes", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, pv());
    const labelled = await cluster.patch(PV, ref, { merge: { metadata: { labels: { b: "1" } } } });
    expect(labelled.metadata?.generation).toBe(1);
    const statused = await cluster.patch(
      PV,
      ref,
      { merge: { status: { a: 1 } } },
      { status: true },
    );
    expect(statused.metadata?.generation).toBe(1);
    expect(statused.status).toEqual({ a: 1 });
    const specced = await cluster.patch(PV, ref, { merge: { spec: { deletionPolicy: "orphan" } } });
    expect(specced.metadata?.generation).toBe(2);
    expect(Number(specced.metadata?.resourceVersion)).toBeGreaterThan(
      Number(statused.metadata?.resourceVersion),
    );
  });

  it("writes nothing for a patch that changes nothing", async () => {
    const cluster = new MemoryCluster();
    const created = await cluster.create(PV, pv());
    const writes: WatchPhase[] = [];
    cluster.onWrite(phase => writes.push(phase));
    const same = await cluster.patch(PV, ref, { merge: { metadata: { labels: { app: "x" } } } });
    expect(same.metadata?.resourceVersion).toBe(created?.metadata?.resourceVersion);
    expect(writes).toEqual([]);
  });

  it("ignores .status in a main-resource patch and everything but .status in a /status one", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, pv());
    const main = await cluster.patch(PV, ref, { merge: { status: { a: 1 }, spec: { x: 1 } } });
    expect(main.status).toBeUndefined();
    expect(main.spec).toMatchObject({ x: 1 });
    const status = await cluster.patch(
      PV,
      ref,
      { merge: { status: { a: 1 }, spec: { x: 2 }, metadata: { labels: { l: "1" } } } },
      { status: true },
    );
    expect(status.status).toEqual({ a: 1 });
    expect(status.spec).toMatchObject({ x: 1 });
    expect(status.metadata?.labels).toEqual({ app: "x" });
  });

  it("keeps server-owned metadata whatever a patch says", async () => {
    const cluster = new MemoryCluster();
    const created = await cluster.create(PV, pv());
    const patched = await cluster.patch(PV, ref, {
      merge: { metadata: { generation: 7, creationTimestamp: "1999-01-01T00:00:00Z" } },
    });
    expect(patched.metadata?.generation).toBe(1);
    expect(patched.metadata?.creationTimestamp).toBe(created?.metadata?.creationTimestamp);
  });

  it("fails a patch carrying a stale resourceVersion with Conflict", async () => {
    const cluster = new MemoryCluster();
    const created = await cluster.create(PV, pv());
    await cluster.patch(PV, ref, { merge: { spec: { x: 1 } } });
    const stale = { metadata: { resourceVersion: created?.metadata?.resourceVersion } };
    await expect(cluster.patch(PV, ref, { merge: { ...stale, spec: { x: 2 } } })).rejects.toEqual(
      rejection(409, "Conflict"),
    );
  });

  it("answers NotFound for a patch of a missing object", async () => {
    const cluster = new MemoryCluster();
    await expect(cluster.patch(PV, ref, { merge: {} })).rejects.toEqual(rejection(404, "NotFound"));
  });
});

describe("MemoryCluster: JSON patch", () => {
  const setup = async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, {
      metadata: { ...ref, annotations: { "example.com/a~b": "1", "x/y": "2" } },
      spec: { list: ["a", "c"] },
    });
    return cluster;
  };

  it("reads ~1 as / and ~0 as ~ in paths", async () => {
    const cluster = await setup();
    const patched = await cluster.patch(PV, ref, {
      json: [
        { op: "replace", path: "/metadata/annotations/example.com~1a~0b", value: "one" },
        { op: "remove", path: "/metadata/annotations/x~1y" },
        { op: "add", path: "/metadata/annotations/~01", value: "tilde-one" },
      ],
    });
    expect(patched.metadata?.annotations).toEqual({ "example.com/a~b": "one", "~1": "tilde-one" });
  });

  it("adds into lists by index and at the end", async () => {
    const cluster = await setup();
    const patched = await cluster.patch(PV, ref, {
      json: [
        { op: "add", path: "/spec/list/1", value: "b" },
        { op: "add", path: "/spec/list/-", value: "d" },
        { op: "replace", path: "/spec/list/0", value: "A" },
      ],
    });
    expect(patched.spec?.list).toEqual(["A", "b", "c", "d"]);
  });

  it("fails the whole patch with 422 when a test fails, writing nothing", async () => {
    const cluster = await setup();
    const before = await cluster.get(PV, ref);
    const patch = {
      json: [
        { op: "add" as const, path: "/spec/x", value: 1 },
        { op: "test" as const, path: "/metadata/annotations/x~1y", value: "other" },
      ],
    };
    await expect(cluster.patch(PV, ref, patch)).rejects.toEqual(rejection(422, "Invalid"));
    await expect(cluster.get(PV, ref)).resolves.toEqual(before);
  });

  it("passes a test that holds, and fails replace or remove of a missing path", async () => {
    const cluster = await setup();
    const rv = (await cluster.get(PV, ref))?.metadata?.resourceVersion;
    await expect(
      cluster.patch(PV, ref, {
        json: [
          { op: "test", path: "/metadata/resourceVersion", value: rv },
          { op: "add", path: "/spec/x", value: 1 },
        ],
      }),
    ).resolves.toMatchObject({ spec: { x: 1 } });
    for (const op of ["replace", "remove"] as const)
      await expect(
        cluster.patch(PV, ref, { json: [{ op, path: "/spec/missing", value: 1 }] }),
      ).rejects.toEqual(rejection(422, "Invalid"));
  });
});

describe("MemoryCluster: merge patch", () => {
  it("merges objects, replaces lists and deletes on null", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, { metadata: ref, spec: { a: { b: 1, c: 2 }, list: [1, 2], gone: 1 } });
    const patched = await cluster.patch(PV, ref, {
      merge: { spec: { a: { c: null, d: 3 }, list: [3], gone: null } },
    });
    expect(patched.spec).toEqual({ a: { b: 1, d: 3 }, list: [3] });
  });
});

describe("MemoryCluster: server-side apply", () => {
  it("creates a missing object, recording the field manager", async () => {
    const cluster = new MemoryCluster();
    const applied = await cluster.apply(PV, pv(), "porch-pepr");
    expect(applied.metadata?.generation).toBe(1);
    expect(cluster.managers(PV, ref)).toEqual(["porch-pepr"]);
  });

  it("merges objects into spec and metadata, replacing lists", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, {
      metadata: { ...ref, labels: { a: "1" }, finalizers: ["x"] },
      spec: { keep: 1, nested: { a: 1 }, list: [1, 2] },
    });
    const applied = await cluster.apply(
      PV,
      {
        metadata: { ...ref, labels: { b: "2" }, finalizers: ["y"] },
        spec: { nested: { b: 2 }, list: [3] },
        status: { ignored: true },
      },
      "m1",
    );
    expect(applied.metadata?.labels).toEqual({ a: "1", b: "2" });
    expect(applied.metadata?.finalizers).toEqual(["y"]);
    expect(applied.spec).toEqual({ keep: 1, nested: { a: 1, b: 2 }, list: [3] });
    expect(applied.status).toBeUndefined();
    expect(applied.metadata?.generation).toBe(2);
  });

  it("merges conditions by type and owner references by uid, as their schemas declare", async () => {
    const cluster = new MemoryCluster();
    const owner = (uid: string, name: string) => ({ apiVersion: "v1", kind: "K", name, uid });
    await cluster.apply(
      PV,
      { ...pv(), metadata: { ...ref, ownerReferences: [owner("1", "a")] } },
      "m1",
    );
    await cluster.apply(
      PV,
      { metadata: ref, status: { conditions: [{ type: "Ready", status: "False" }] } },
      "core",
      { status: true },
    );
    await cluster.apply(
      PV,
      { metadata: ref, status: { conditions: [{ type: "Rendered", status: "True" }] } },
      "render",
      { status: true },
    );
    const applied = await cluster.apply(
      PV,
      {
        metadata: { ...ref, ownerReferences: [owner("1", "renamed"), owner("2", "b")] },
        status: { conditions: [{ type: "Ready", status: "True" }] },
      },
      "m2",
    );
    expect(applied.metadata?.ownerReferences?.map(o => o.name)).toEqual(["renamed", "b"]);
    const status = (
      await cluster.apply(
        PV,
        { metadata: ref, status: { conditions: [{ type: "Ready", status: "True" }] } },
        "core",
        { status: true },
      )
    ).status as { conditions: unknown[] };
    expect(status.conditions).toEqual([
      { type: "Ready", status: "True" },
      { type: "Rendered", status: "True" },
    ]);
  });

  it("writes only .status with the status option, and needs the object to exist", async () => {
    const cluster = new MemoryCluster();
    await expect(
      cluster.apply(PV, { metadata: ref, status: { a: 1 } }, "m", { status: true }),
    ).rejects.toEqual(rejection(404, "NotFound"));
    await cluster.apply(PV, pv(), "m");
    const applied = await cluster.apply(
      PV,
      { metadata: { ...ref, labels: { no: "1" } }, spec: { no: 1 }, status: { a: 1 } },
      "m",
      { status: true },
    );
    expect(applied.status).toEqual({ a: 1 });
    expect(applied.spec).toEqual(pv().spec);
    expect(applied.metadata?.labels).toEqual({ app: "x" });
    expect(applied.metadata?.generation).toBe(1);
    expect(cluster.managers(PV, ref)).toEqual(["m", "m/status"]);
  });

  it("fails with Conflict when the applied object carries a stale resourceVersion", async () => {
    const cluster = new MemoryCluster();
    const first = await cluster.apply(PV, pv(), "m");
    const rv = first.metadata?.resourceVersion;
    await cluster.apply(PV, pv({ changed: true }), "m");
    const stale = { ...pv(), metadata: { ...ref, resourceVersion: rv } };
    await expect(cluster.apply(PV, stale, "m")).rejects.toEqual(rejection(409, "Conflict"));
    await expect(cluster.apply(PV, stale, "m", { status: true })).rejects.toEqual(
      rejection(409, "Conflict"),
    );
    const current = (await cluster.get(PV, ref))?.metadata?.resourceVersion;
    const fresh = { metadata: { ...ref, resourceVersion: current }, status: { a: 1 } };
    await expect(cluster.apply(PV, fresh, "m", { status: true })).resolves.toMatchObject({
      status: { a: 1 },
    });
  });
});
