import { Capability } from "pepr";
import { PackageRevision, PackageVariant } from "../../crd-types";
import { keyOf } from "../../lib/controller/manager";
import { allButStatus } from "../../lib/controller/relevance";
import { variantEventDelayMs } from "../../lib/package-variant-set";
import { manager } from "../manager";
import { DynamicWatches } from "../shared/dynamic-watches";
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

// Objects of the kinds sets select (run-time watches, one per kind).
const selectedKinds = new DynamicWatches(
  "PackageVariantSet object selectors",
  (ctx, apiVersion, kind, obj) => {
    const namespace = obj.metadata?.namespace ?? "";
    for (const key of ctx.caches.setIndex.forObject(namespace, apiVersion, kind))
      setController.add(key);
  },
);

/** The set a PackageVariant says it belongs to (its label holds the set's UID). */
const setUidOf = (pv: PackageVariant) => pv.metadata?.labels?.[SET_LABEL] ?? "";

export const setController = manager.controller({
  name: "PackageVariantSet",
  for: "PackageVariantSet",
  // Its own status writes start no reconcile: they would bypass the window below, every
  // reconcile that writes the status bringing the next one at once.
  relevance: allButStatus,
  forget: (set, ctx) => ctx.caches.setIndex.remove(keyOf(set), set.metadata?.uid),
  watches: [
    {
      // One of the set's PackageVariants changed (its Ready state, or someone edited it).
      kind: "PackageVariant",
      // At most one reconcile per window, longer for a larger set (lib/package-variant-set).
      delayMs: (pv, ctx) =>
        variantEventDelayMs(ctx.caches.variants.count("set", setUidOf(pv as PackageVariant))),
      map: (pv, _phase, ctx) => {
        const key = ctx.caches.setIndex.keyOfUid(setUidOf(pv as PackageVariant));
        return key ? [key] : [];
      },
    },
    {
      // A revision of an upstream package appeared, was published or went away.
      kind: "PackageRevision",
      map: (pr, _phase, ctx) => {
        const { namespace = "" } = pr.metadata ?? {};
        const spec = (pr as PackageRevision).spec;
        return ctx.caches.setIndex.forUpstream(
          namespace,
          spec?.repository ?? "",
          spec?.packageName ?? "",
        );
      },
    },
    {
      // Repositories are selected by label and their labels feed templates.
      kind: "Repository",
      map: (repo, _phase, ctx) =>
        ctx.caches.setIndex.forRepository(
          repo.metadata?.namespace ?? "",
          repo.metadata?.name ?? "",
        ),
    },
  ],
  reconcile: reconcilePackageVariantSet,
  after: ctx => selectedKinds.ensure(ctx, ctx.caches.setIndex.objectKinds()),
});
