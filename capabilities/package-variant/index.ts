import { Capability } from "pepr";
import { PackageRevision } from "../../crd-types";
import { keyOf } from "../../lib/controller/manager";
import { revisionRelevance } from "../../lib/package-variant";
import { allButStatus } from "../../lib/controller/relevance";
import type { OperatorContext } from "../context";
import { manager } from "../manager";
import { operator } from "../operator";
import { onFunctionCatalogChange } from "../shared/function-catalog";
import { DynamicWatches } from "../shared/dynamic-watches";
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

// A change to an injected ConfigMap or custom resource produces an updated draft.
const injectedKinds = new DynamicWatches(
  "PackageVariant config injection",
  (ctx, apiVersion, kind, obj) => {
    const ref = {
      apiVersion,
      kind,
      namespace: obj.metadata?.namespace ?? "",
      name: obj.metadata?.name ?? "",
    };
    for (const key of ctx.caches.variantIndex.forInjected(ref)) variantController.add(key);
  },
);

/** The variants an upstream, downstream or owned revision concerns. */
function concerned(ctx: OperatorContext, pr: PackageRevision): string[] {
  const owners = (pr.metadata?.ownerReferences ?? [])
    .filter(o => o.kind === "PackageVariant")
    .map(o => o.uid);
  return ctx.caches.variantIndex.forPackageRevision(
    pr.metadata?.namespace ?? "",
    pr.spec?.repository ?? "",
    pr.spec?.packageName ?? "",
    owners,
  );
}

/**
 * A revision's reconcile writes its render status, Kptfile-derived spec, core status and labels
 * one after another: the variant is reconciled once after such a burst, not once per write.
 */
const REVISION_EVENT_DELAY_MS = 500;

// Only events that change what a reconcile reads (not this controller's own status writes,
// nor render progress and labels other controllers keep) cost a reconcile.
export const variantController = manager.controller({
  name: "PackageVariant",
  for: "PackageVariant",
  relevance: allButStatus,
  forget: (pv, ctx) => ctx.caches.variantIndex.remove(keyOf(pv)),
  watches: [
    {
      // An upstream revision published, a downstream draft rendered, an owned revision changed.
      kind: "PackageRevision",
      delayMs: REVISION_EVENT_DELAY_MS,
      relevance: pr => revisionRelevance(pr as PackageRevision),
      map: (pr, _phase, ctx) => concerned(ctx, pr as PackageRevision),
      forget: (pr, ctx) => {
        forgetRenderStatus(ctx, pr as PackageRevision);
        ctx.caches.mutationChecks.forget(keyOf(pr));
      },
    },
  ],
  reconcile: reconcilePackageVariant,
  after: ctx => injectedKinds.ensure(ctx, ctx.caches.variantIndex.injectedKinds()),
});

// A variant stalled on an exec function the catalog did not run is checked again.
onFunctionCatalogChange(() => {
  for (const pv of operator.caches.variants.by("stalled", "true")) variantController.add(keyOf(pv));
});
