import { Capability, kind } from "pepr";
import { PackageRevision, PackageVariant, PackageVariantSet, Repository } from "../../crd-types";
import { Controller, keyOf } from "../shared/controller";
import { DynamicWatches } from "../shared/dynamic-watches";
import { reconcilePackageVariantSet, sets } from "./reconcile";
import { SET_LABEL } from "./variants";

/**
 * PackageVariantSet: fans one upstream out to many targets (repository lists, Repository label
 * selectors, any object selector) through CEL templates, with set-based reconciliation.
 */
export const PackageVariantSetCapability = new Capability({
  name: "package-variant-set",
  description: "Creates, updates and deletes the PackageVariants of each PackageVariantSet.",
});

const { When } = PackageVariantSetCapability;

const selectedKinds = new DynamicWatches("PackageVariantSet object selectors", onSelectedObject);

export const setController = new Controller("PackageVariantSet", async key => {
  await reconcilePackageVariantSet(key);
  await selectedKinds.ensure(sets.objectKinds());
});

const enqueueAll = (keys: string[]) => keys.forEach(k => setController.queue.add(k));

function onSelectedObject(apiVersion: string, kindName: string, obj: kind.GenericKind): void {
  enqueueAll(sets.forObject(obj.metadata?.namespace ?? "", apiVersion, kindName));
}

When(PackageVariantSet).IsCreatedOrUpdated().Watch(setController.enqueue);
When(PackageVariantSet)
  .IsDeleted()
  .Watch(set => sets.remove(keyOf(set), set.metadata?.uid));

// A PackageVariant of a set changed (its Ready state, or someone edited or deleted it).
When(PackageVariant)
  .IsCreatedOrUpdated()
  .Watch(pv => enqueueAll(ownerSet(pv)));
When(PackageVariant)
  .IsDeleted()
  .Watch(pv => enqueueAll(ownerSet(pv)));

function ownerSet(pv: PackageVariant): string[] {
  const key = sets.keyOfUid(pv.metadata?.labels?.[SET_LABEL] ?? "");
  return key ? [key] : [];
}

// A revision of an upstream package appeared, was published or went away.
When(PackageRevision)
  .IsCreatedOrUpdated()
  .Watch(pr => enqueueAll(upstreamSets(pr)));
When(PackageRevision)
  .IsDeleted()
  .Watch(pr => enqueueAll(upstreamSets(pr)));

function upstreamSets(pr: PackageRevision): string[] {
  return sets.forUpstream(
    pr.metadata?.namespace ?? "",
    pr.spec?.repository ?? "",
    pr.spec?.packageName ?? "",
  );
}

// Repositories are selected by label and their labels feed templates.
When(Repository)
  .IsCreatedOrUpdated()
  .Watch(repo =>
    enqueueAll(sets.forRepository(repo.metadata?.namespace ?? "", repo.metadata?.name ?? "")),
  );
When(Repository)
  .IsDeleted()
  .Watch(repo =>
    enqueueAll(sets.forRepository(repo.metadata?.namespace ?? "", repo.metadata?.name ?? "")),
  );
