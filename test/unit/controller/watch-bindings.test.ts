import { manager, slimResources, Watches } from "../../../capabilities/manager";
import type { PackageRevisionResources } from "../../../crd-types";
import { PackageRevisionCapability } from "../../../capabilities/package-revision";
import { PackageVariantCapability } from "../../../capabilities/package-variant";
import {
  PackageVariantSetCapability,
  setController,
} from "../../../capabilities/package-variant-set";
import { RepositoryCapability } from "../../../capabilities/repository";

interface Binding {
  isWatch?: boolean;
  event: string;
  kind: { kind: string };
}

const watchBindings = (capability: { bindings: unknown[] }) =>
  (capability.bindings as Binding[]).filter(b => b.isWatch);

describe("the module's watches", () => {
  it("are one Pepr watch per kind, for every event, all in the Watches capability", () => {
    const watches = watchBindings(Watches);
    expect(watches.map(b => b.kind.kind).sort()).toEqual([
      "PackageRevision",
      "PackageRevisionResources",
      "PackageVariant",
      "PackageVariantSet",
      "Repository",
    ]);
    // "*": Pepr passes created, updated and deleted objects to the one binding.
    expect(new Set(watches.map(b => b.event))).toEqual(new Set(["*"]));
    for (const capability of [
      PackageRevisionCapability,
      PackageVariantCapability,
      PackageVariantSetCapability,
      RepositoryCapability,
    ])
      expect(watchBindings(capability)).toEqual([]);
  });
});

describe("the PackageRevisionResources the watch keeps", () => {
  it("hold their version, not their files nor their render status", () => {
    const prr = {
      metadata: { name: "r", namespace: "ns", resourceVersion: "7" },
      spec: { packageName: "app", resources: { Kptfile: "kind: Kptfile" } },
      status: { renderStatus: { result: { items: [] } } },
    } as PackageRevisionResources;

    slimResources(prr);

    expect(prr).toEqual({
      metadata: { name: "r", namespace: "ns", resourceVersion: "7" },
      spec: { packageName: "app" },
    });
  });
});

describe("a controller's own status writes", () => {
  it("start no reconcile of the PackageVariantSet written", () => {
    const add = jest.spyOn(setController, "add").mockImplementation(() => undefined);
    const set = (generation: number, ready: string) => ({
      metadata: { name: "s", namespace: "ns", uid: "set-1", generation },
      status: { conditions: [{ type: "Ready", status: ready }] },
    });
    const deliver = (obj: object) =>
      manager.onEvent("PackageVariantSet", obj, "MODIFIED", error => {
        throw error;
      });

    deliver(set(1, "Unknown"));
    deliver(set(1, "True"));
    expect(add).toHaveBeenCalledTimes(1);
    deliver(set(2, "True"));
    expect(add).toHaveBeenCalledTimes(2);
    add.mockRestore();
  });
});
