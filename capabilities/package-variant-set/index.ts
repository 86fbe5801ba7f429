import { Capability } from "pepr";
import type { KubeObject } from "../../lib/cluster/port";
import { PackageRevision, PackageVariant, PackageVariantSet, Repository } from "../../crd-types";
import { Controller, keyOf } from "../shared/controller";
import { DynamicWatches } from "../shared/dynamic-watches";
import { operator } from "../operator";
import { reconcilePackageVariantSet } from "./reconcile";
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

const sets = operator.caches.setIndex;
const variantCache = operator.caches.variants;
const revisionCache = operator.caches.revisions.cache;

const selectedKinds = new DynamicWatches("PackageVariantSet object selectors", onSelectedObject);

export const setController = new Controller("PackageVariantSet", async key => {
  await reconcilePackageVariantSet(key, operator);
  await selectedKinds.ensure(operator, sets.objectKinds());
});

const enqueueAll = (keys: string[]) => keys.forEach(k => setController.queue.add(k));

function onSelectedObject(apiVersion: string, kindName: string, obj: KubeObject): void {
  enqueueAll(sets.forObject(obj.metadata?.namespace ?? "", apiVersion, kindName));
}

When(PackageVariantSet).IsCreatedOrUpdated().Watch(setController.enqueue);
When(PackageVariantSet)
  .IsDeleted()
  .Watch(set => sets.remove(keyOf(set), set.metadata?.uid));

// A PackageVariant of a set changed (its Ready state, or someone edited or deleted it). A set
// of N variants sees several such events per variant and each reconcile plans all N targets,
// so these reconcile the set at most once a second (all events of that second in one).
const VARIANT_EVENT_DELAY_MS = 1_000;
const enqueueSoon = (keys: string[]) =>
  keys.forEach(k => setController.queue.addAfter(k, VARIANT_EVENT_DELAY_MS));

When(PackageVariant)
  .IsCreatedOrUpdated()
  .Watch(pv => {
    variantCache.upsert(pv);
    enqueueSoon(ownerSet(pv));
  });
When(PackageVariant)
  .IsDeleted()
  .Watch(pv => {
    variantCache.remove(pv);
    enqueueSoon(ownerSet(pv));
  });

function ownerSet(pv: PackageVariant): string[] {
  const key = sets.keyOfUid(pv.metadata?.labels?.[SET_LABEL] ?? "");
  return key ? [key] : [];
}

// A revision of an upstream package appeared, was published or went away.
When(PackageRevision)
  .IsCreatedOrUpdated()
  .Watch(pr => {
    revisionCache.upsert(pr);
    enqueueAll(upstreamSets(pr));
  });
When(PackageRevision)
  .IsDeleted()
  .Watch(pr => {
    revisionCache.remove(pr);
    enqueueAll(upstreamSets(pr));
  });

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
