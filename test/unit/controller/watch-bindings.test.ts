import { slimResources, Watches } from "../../../capabilities/manager";
import type { PackageRevisionResources } from "../../../crd-types";
import { PackageRevisionCapability } from "../../../capabilities/package-revision";
import { PackageVariantCapability } from "../../../capabilities/package-variant";
import { PackageVariantSetCapability } from "../../../capabilities/package-variant-set";
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
