import { Capability, kind } from "pepr";
import { PackageRevision, PackageVariant } from "../../crd-types";
import { Controller, keyOf } from "../shared/controller";
import { DynamicWatches } from "../shared/dynamic-watches";
import { reconcilePackageVariant, variants } from "./reconcile";

/**
 * PackageVariant: derives a downstream package from an upstream one and keeps it in sync:
 * clone, upgrade and edit drafts; package context, prepended pipeline functions, and
 * configuration injected from in-cluster objects.
 */
export const PackageVariantCapability = new Capability({
  name: "package-variant",
  description: "Creates and updates the downstream drafts of each PackageVariant.",
});

const { When } = PackageVariantCapability;

const injectedKinds = new DynamicWatches("PackageVariant config injection", onInjectedObject);

export const variantController = new Controller("PackageVariant", async key => {
  await reconcilePackageVariant(key);
  await injectedKinds.ensure(variants.injectedKinds());
});

const enqueueAll = (keys: string[]) => keys.forEach(k => variantController.queue.add(k));

When(PackageVariant).IsCreatedOrUpdated().Watch(variantController.enqueue);
When(PackageVariant)
  .IsDeleted()
  .Watch(pv => variants.remove(keyOf(pv)));

// An upstream revision published, a downstream draft rendered, an owned revision changed.
When(PackageRevision)
  .IsCreatedOrUpdated()
  .Watch(pr => enqueueAll(concerned(pr)));
When(PackageRevision)
  .IsDeleted()
  .Watch(pr => enqueueAll(concerned(pr)));

function concerned(pr: PackageRevision): string[] {
  const owners = (pr.metadata?.ownerReferences ?? [])
    .filter(o => o.kind === "PackageVariant")
    .map(o => o.uid);
  return variants.forPackageRevision(
    pr.metadata?.namespace ?? "",
    pr.spec?.repository ?? "",
    pr.spec?.packageName ?? "",
    owners,
  );
}

// A change to an injected ConfigMap or custom resource produces an updated draft (seed 001).
function onInjectedObject(apiVersion: string, kindName: string, obj: kind.GenericKind): void {
  const ref = {
    apiVersion,
    kind: kindName,
    namespace: obj.metadata?.namespace ?? "",
    name: obj.metadata?.name ?? "",
  };
  enqueueAll(variants.forInjected(ref));
}
