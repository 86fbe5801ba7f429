import { Capability } from "pepr";
import { keyOf } from "../../lib/controller/manager";
import { manager } from "../manager";
import { operator } from "../operator";
import { onFunctionCatalogChange } from "../shared/function-catalog";
import { concurrency } from "./config";
import { reconcilePackageRevision } from "./reconcile";
import { batchWaits, pendingDraftsOf, pendingMovesOf } from "./writers";

/**
 * PackageRevision lifecycle: CRD as intent, git as content. Creates revisions from their source
 * (init, clone, copy, upgrade), renders Drafts, moves revisions through their lifecycle in git,
 * gates deletion and keeps the latest-revision label.
 */
export const PackageRevisionCapability = new Capability({
  name: "package-revision",
  description: "Reconciles PackageRevisions with their content in git.",
});

export const packageRevisionController = manager.controller({
  name: "PackageRevision",
  for: "PackageRevision",
  // An edit of a revision's files (same name) is content to commit and render.
  watches: [{ kind: "PackageRevisionResources", map: prr => [keyOf(prr)] }],
  reconcile: reconcilePackageRevision,
  forget: (pr, ctx) => {
    ctx.render.catalogFailures.delete(keyOf(pr));
    ctx.render.capacityRetries.forget(keyOf(pr));
    pendingDraftsOf(ctx).forget(keyOf(pr));
    pendingMovesOf(ctx).forget(keyOf(pr));
  },
  concurrency: concurrency.workers,
});

// A draft or move handed to its repository's next push goes on when the push settles
// (source.ts, lifecycle.ts), and that push waits while more of the repository's writers are on
// their way.
pendingDraftsOf(operator).onSettled(key => packageRevisionController.add(key));
pendingMovesOf(operator).onSettled(key => packageRevisionController.add(key));
operator.stores.writersComing = (namespace, name) => batchWaits(operator, namespace, name);
operator.stores.othersActive = namespace =>
  packageRevisionController.othersActive?.(namespace) ?? false;

// A render that failed for want of a function may succeed under the new catalog (render.ts).
onFunctionCatalogChange(() => {
  for (const pr of operator.caches.revisions.cache.by("awaitsCatalog", "true"))
    packageRevisionController.add(keyOf(pr));
});
