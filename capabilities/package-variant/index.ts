import { Capability } from "pepr";
import type { KubeObject } from "../../lib/cluster/port";
import { PackageRevision, PackageVariant } from "../../crd-types";
import { ChangeFilter } from "../../lib/controller/change-filter";
import { revisionRelevance, variantRelevance } from "../../lib/package-variant";
import { Controller, keyOf } from "../shared/controller";
import { DynamicWatches } from "../shared/dynamic-watches";
import { operator } from "../operator";
import { reconcilePackageVariant } from "./reconcile";
import { forgetRenderStatus } from "./status";

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

const variants = operator.caches.variantIndex;
const revisionCache = operator.caches.revisions.cache;

const injectedKinds = new DynamicWatches("PackageVariant config injection", onInjectedObject);

export const variantController = new Controller("PackageVariant", async key => {
  await reconcilePackageVariant(key, operator);
  await injectedKinds.ensure(operator, variants.injectedKinds());
});

const enqueueAll = (keys: string[]) => keys.forEach(k => variantController.queue.add(k));

// Only events that change what a reconcile reads (not this controller's own status writes,
// nor render progress and labels other controllers keep) cost a reconcile.
const variantChanges = new ChangeFilter(variantRelevance);
const revisionChanges = new ChangeFilter(revisionRelevance);
const uidOf = (obj: { metadata?: { uid?: string } }) => obj.metadata?.uid ?? "";

When(PackageVariant)
  .IsCreatedOrUpdated()
  .Watch(pv => {
    if (variantChanges.changed(uidOf(pv), pv)) variantController.enqueue(pv);
  });
When(PackageVariant)
  .IsDeleted()
  .Watch(pv => {
    variantChanges.forget(uidOf(pv));
    variants.remove(keyOf(pv));
  });

// An upstream revision published, a downstream draft rendered, an owned revision changed.
When(PackageRevision)
  .IsCreatedOrUpdated()
  .Watch(pr => {
    revisionCache.upsert(pr);
    if (revisionChanges.changed(uidOf(pr), pr)) enqueueAll(concerned(pr));
  });
When(PackageRevision)
  .IsDeleted()
  .Watch(pr => {
    revisionCache.remove(pr);
    revisionChanges.forget(uidOf(pr));
    forgetRenderStatus(operator, pr);
    enqueueAll(concerned(pr));
  });

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
function onInjectedObject(apiVersion: string, kindName: string, obj: KubeObject): void {
  const ref = {
    apiVersion,
    kind: kindName,
    namespace: obj.metadata?.namespace ?? "",
    name: obj.metadata?.name ?? "",
  };
  enqueueAll(variants.forInjected(ref));
}
