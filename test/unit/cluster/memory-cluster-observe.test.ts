import { ApiError } from "../../../lib/cluster/errors";
import {
  NamespaceKind,
  SelfSubjectReviewKind,
  SubjectAccessReviewKind,
} from "../../../lib/cluster/kinds";
import { MemoryCluster } from "../../support/memory-cluster";
import { PR, PV, pv, ref, rejection } from "./helpers";

describe("MemoryCluster: reviews, events, discovery", () => {
  it("answers reviews without storing them", async () => {
    const seen: unknown[] = [];
    const cluster = new MemoryCluster({
      username: "me",
      mayAccess: spec => (seen.push(spec), spec.resourceAttributes?.verb === "get"),
    });
    const self = await cluster.create(SelfSubjectReviewKind, {});
    expect(self?.status?.userInfo?.username).toBe("me");
    const attributes = { group: "", resource: "secrets", namespace: "ns", name: "s" };
    const may = (verb: string) =>
      cluster.create(SubjectAccessReviewKind, {
        spec: { user: "u", resourceAttributes: { ...attributes, verb } },
      });
    expect((await may("get"))?.status).toEqual({ allowed: true });
    expect((await may("delete"))?.status).toEqual({ allowed: false });
    expect(seen).toHaveLength(2);
    await expect(cluster.list(SubjectAccessReviewKind)).rejects.toEqual(
      rejection(405, "MethodNotAllowed"),
    );
  });

  it("allows every access by default", async () => {
    const review = await new MemoryCluster().create(SubjectAccessReviewKind, { spec: {} });
    expect(review?.status?.allowed).toBe(true);
  });

  it("records events and never fails on them", async () => {
    const cluster = new MemoryCluster();
    await cluster.event({ kind: "PackageVariant", metadata: ref }, "Warning", "Failed", "boom");
    await cluster.event({}, "Normal", "Odd", "no metadata");
    expect(cluster.events).toEqual([
      { type: "Warning", reason: "Failed", message: "boom", kind: "PackageVariant", ...ref },
      expect.objectContaining({ type: "Normal", reason: "Odd" }),
    ]);
  });

  it("lists the served kinds of a group/version, 404 for an unknown one", async () => {
    const cluster = new MemoryCluster();
    const resources = await cluster.resources("config.porch.kpt.dev", "v1alpha1");
    expect(resources).toEqual(
      expect.arrayContaining([
        { name: "packagevariants", kind: "PackageVariant", namespaced: true },
        { name: "packagevariants/status", kind: "PackageVariant", namespaced: true },
        { name: "repositories", kind: "Repository", namespaced: true },
      ]),
    );
    expect(await cluster.resources("", "v1")).toContainEqual({
      name: "secrets",
      kind: "Secret",
      namespaced: true,
    });
    await expect(cluster.resources("example.com", "v1")).rejects.toEqual(
      rejection(404, "NotFound"),
    );
    cluster.serve({
      group: "example.com",
      version: "v1",
      kind: "W",
      plural: "ws",
      namespaced: false,
    });
    expect(await cluster.resources("example.com", "v1")).toHaveLength(2);
  });
});

describe("MemoryCluster: watches, faults, call log", () => {
  it("replays existing objects, then reports later writes until closed", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, { ...pv(), metadata: { namespace: "ns", name: "old" } });
    const seen: string[] = [];
    const watch = await cluster.watch(PV, (obj, phase) =>
      seen.push(`${phase} ${obj.metadata?.name}`),
    );
    await cluster.create(PR, { metadata: { namespace: "ns", name: "other-kind" } });
    await cluster.create(PV, pv());
    await cluster.patch(PV, ref, { merge: { spec: { x: 1 } } });
    await cluster.delete(PV, ref);
    watch.close();
    await cluster.delete(PV, { namespace: "ns", name: "old" });
    await Promise.resolve();
    expect(seen).toEqual(["ADDED old", "ADDED pv", "MODIFIED pv", "DELETED pv"]);
  });

  it("tells onWrite listeners of every write, synchronously", async () => {
    const cluster = new MemoryCluster();
    const writes: string[] = [];
    const stop = cluster.onWrite((phase, obj, kind) =>
      writes.push(`${phase} ${kind.kind} ${obj.metadata?.resourceVersion}`),
    );
    await cluster.create(PV, { ...pv(), metadata: { ...ref, finalizers: ["f"] } });
    await cluster.delete(PV, ref);
    await cluster.patch(PV, ref, { merge: { metadata: { finalizers: [] } } });
    stop();
    await cluster.create(PV, pv());
    expect(writes).toEqual([
      "ADDED PackageVariant 1",
      "MODIFIED PackageVariant 2",
      "MODIFIED PackageVariant 3",
      "DELETED PackageVariant 4",
    ]);
  });

  it("throws an injected failure once, on the matching verb and kind", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, pv());
    cluster.failNext("patch", "PackageVariant", new ApiError(500, "InternalError", "etcd"));
    cluster.failNext("get", "*", new Error("connection reset"));
    await expect(cluster.get(PV, ref)).rejects.toThrow("connection reset");
    await expect(cluster.get(PV, ref)).resolves.toBeDefined();
    await expect(cluster.patch(PR, ref, { merge: {} })).rejects.toEqual(rejection(404, "NotFound"));
    await expect(cluster.patch(PV, ref, { merge: {} })).rejects.toEqual(
      rejection(500, "InternalError"),
    );
    await expect(cluster.patch(PV, ref, { merge: {} })).resolves.toBeDefined();
  });

  it("answers an injected 404 on get and delete as the adapter does", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, pv());
    cluster.failNext("get", "PackageVariant", new ApiError(404, "NotFound", "gone"));
    cluster.failNext("delete", "PackageVariant", new ApiError(404, "NotFound", "gone"));
    await expect(cluster.get(PV, ref)).resolves.toBeUndefined();
    await expect(cluster.delete(PV, ref)).resolves.toBe(false);
  });

  it("logs every call", async () => {
    const cluster = new MemoryCluster();
    await cluster.create(PV, pv());
    await cluster.get(PV, ref);
    await cluster.list(PV, { namespace: "ns" });
    await cluster.apply(PV, { metadata: ref, status: { a: 1 } }, "test", { status: true });
    await cluster.get(NamespaceKind, { namespace: "ignored", name: "ns" });
    expect(cluster.calls).toEqual([
      "create PackageVariant ns/pv",
      "get PackageVariant ns/pv",
      "list PackageVariant ns",
      "apply PackageVariant ns/pv (status)",
      "get Namespace ns",
    ]);
  });
});
