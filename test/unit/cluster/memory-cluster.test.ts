import { NamespaceKind, SecretKind } from "../../../lib/cluster/kinds";
import { refOf, type ResourceKind } from "../../../lib/cluster/port";
import { MemoryCluster } from "../../support/memory-cluster";
import { PV, pv, ref, rejection } from "./helpers";

describe("MemoryCluster: objects and versions", () => {
  it("assigns uid, creationTimestamp, resourceVersion and generation on create", async () => {
    const now = new Date("2024-05-01T10:00:00.123Z");
    const cluster = new MemoryCluster({ now: () => now });
    const created = await cluster.create(PV, pv());
    expect(created).toMatchObject({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "PackageVariant",
      metadata: { ...ref, generation: 1, creationTimestamp: "2024-05-01T10:00:00Z" },
    });
    expect(created?.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    const other = await cluster.create(PV, { ...pv(), metadata: { namespace: "ns", name: "b" } });
    expect(Number(other?.metadata?.resourceVersion)).toBeGreaterThan(
      Number(created?.metadata?.resourceVersion),
    );
    expect(other?.metadata?.uid).not.toBe(created?.metadata?.uid);
  });

  it("ignores status on create when the kind has a status subresource", async () => {
    const cluster = new MemoryCluster();
    const created = await cluster.create(PV, { ...pv(), status: { observedGeneration: 9 } });
    expect(created?.status).toBeUndefined();
  });

  it("refuses a duplicate with AlreadyExists unless told to tolerate it", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, pv());
    await expect(cluster.create(PV, pv())).rejects.toEqual(rejection(409, "AlreadyExists"));
    await expect(cluster.create(PV, pv(), { tolerateExisting: true })).resolves.toBeUndefined();
  });

  it("names objects from generateName", async () => {
    const cluster = new MemoryCluster();
    const a = await cluster.create(PV, { metadata: { namespace: "ns", generateName: "pv-" } });
    const b = await cluster.create(PV, { metadata: { namespace: "ns", generateName: "pv-" } });
    expect(a?.metadata?.name).toMatch(/^pv-[a-z0-9]{5}$/);
    expect(b?.metadata?.name).not.toBe(a?.metadata?.name);
    await expect(
      cluster.get(PV, { namespace: "ns", name: a?.metadata?.name ?? "" }),
    ).resolves.toBeDefined();
  });

  it("refuses objects without a valid name or, for a namespaced kind, a namespace", async () => {
    const cluster = new MemoryCluster();
    await expect(cluster.create(PV, { metadata: { namespace: "ns" } })).rejects.toEqual(
      rejection(422, "Invalid"),
    );
    await expect(
      cluster.create(PV, { metadata: { namespace: "ns", name: "Bad_Name" } }),
    ).rejects.toEqual(rejection(422, "Invalid"));
    await expect(cluster.create(PV, { metadata: { name: "pv" } })).rejects.toEqual(
      rejection(405, "MethodNotAllowed"),
    );
  });

  it("stores a cluster-scoped object without a namespace", async () => {
    const cluster = new MemoryCluster();
    const created = await cluster.create(NamespaceKind, {
      metadata: { name: "n", namespace: "x" },
    });
    expect(created?.metadata?.namespace).toBeUndefined();
    await expect(cluster.get(NamespaceKind, { namespace: "y", name: "n" })).resolves.toBeDefined();
  });

  it("refuses, as the adapter does, names that are not one path segment", async () => {
    const cluster = new MemoryCluster();
    await expect(cluster.get(PV, { namespace: "ns", name: ".." })).rejects.toThrow(
      "invalid object name",
    );
    await expect(cluster.apply(PV, { metadata: { namespace: "ns" } }, "m")).rejects.toThrow(
      "invalid object name",
    );
  });

  it("has no /status for a kind without the subresource", async () => {
    const cluster = new MemoryCluster();
    const secret = { metadata: { namespace: "ns", name: "s" }, type: "Opaque" };
    await cluster.create(SecretKind, secret);
    await expect(
      cluster.patch(SecretKind, refOf(secret), { merge: {} }, { status: true }),
    ).rejects.toEqual(rejection(404, "NotFound"));
  });

  it("returns deep copies, so a caller cannot change what is stored", async () => {
    const cluster = new MemoryCluster();
    const input = pv();
    const created = await cluster.create(PV, input);
    (input.spec as { downstream: { repo: string } }).downstream.repo = "changed";
    (created?.metadata?.labels as Record<string, string>).app = "changed";
    const got = await cluster.get(PV, ref);
    (got?.spec as { downstream: { repo: string } }).downstream.repo = "changed";
    const [listed] = await cluster.list(PV);
    expect(listed.spec).toEqual({ downstream: { repo: "d", package: "p" } });
    expect(listed.metadata?.labels).toEqual({ app: "x" });
  });

  it("answers get with undefined for a missing object or an unserved kind", async () => {
    const cluster = new MemoryCluster();
    await expect(cluster.get(PV, ref)).resolves.toBeUndefined();
    const unserved: ResourceKind = { ...SecretKind, kind: "ConfigMap", plural: "configmaps" };
    await expect(cluster.get(unserved, ref)).resolves.toBeUndefined();
    await expect(cluster.list(unserved)).rejects.toEqual(rejection(404, "NotFound"));
    cluster.serve(unserved, { statusSubresource: false });
    await expect(cluster.list(unserved)).resolves.toEqual([]);
  });

  it("can require the namespace to exist and not be terminating", async () => {
    const cluster = new MemoryCluster({ requireNamespaces: true });
    await expect(cluster.create(PV, pv())).rejects.toEqual(rejection(404, "NotFound"));
    await cluster.create(NamespaceKind, { metadata: { name: "ns", finalizers: ["kubernetes"] } });
    await expect(cluster.create(PV, pv())).resolves.toBeDefined();
    await cluster.delete(NamespaceKind, { name: "ns" });
    const other = { ...pv(), metadata: { namespace: "ns", name: "other" } };
    await expect(cluster.create(PV, other)).rejects.toEqual(rejection(403, "Forbidden"));
  });
});

describe("MemoryCluster: deletion", () => {
  it("deletes, and answers false when there is nothing to delete", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, pv());
    await expect(cluster.delete(PV, ref)).resolves.toBe(true);
    await expect(cluster.get(PV, ref)).resolves.toBeUndefined();
    await expect(cluster.delete(PV, ref)).resolves.toBe(false);
  });

  it("holds an object with finalizers until a patch empties them", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, { ...pv(), metadata: { ...ref, finalizers: ["a", "b"] } });
    await expect(cluster.delete(PV, ref)).resolves.toBe(true);
    const held = await cluster.get(PV, ref);
    expect(held?.metadata?.deletionTimestamp).toEqual(expect.any(String));
    expect(held?.metadata?.generation).toBe(2); // as the API server does for CRDs
    await expect(
      cluster.patch(PV, ref, { merge: { metadata: { finalizers: ["a", "b", "c"] } } }),
    ).rejects.toEqual(rejection(422, "Invalid"));
    await cluster.patch(PV, ref, { json: [{ op: "remove", path: "/metadata/finalizers/0" }] });
    expect((await cluster.get(PV, ref))?.metadata?.finalizers).toEqual(["b"]);
    const gone = await cluster.patch(PV, ref, { merge: { metadata: { finalizers: null } } });
    expect(gone.metadata?.deletionTimestamp).toBeDefined();
    await expect(cluster.get(PV, ref)).resolves.toBeUndefined();
  });

  it("removes a terminating object when an apply empties its finalizers", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, { ...pv(), metadata: { ...ref, finalizers: ["a"] } });
    await cluster.delete(PV, ref);
    await cluster.apply(PV, { metadata: { ...ref, finalizers: [] } }, "test");
    await expect(cluster.get(PV, ref)).resolves.toBeUndefined();
  });
});
