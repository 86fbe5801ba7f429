import { Capability } from "pepr";
import { PackageRevision, PackageRevisionResources } from "../../crd-types";
import { Controller } from "../shared/controller";
import { operator } from "../operator";
import { concurrency } from "./config";
import { reconcilePackageRevision } from "./reconcile";

/**
 * PackageRevision lifecycle: CRD as intent, git as content. Creates revisions from their source
 * (init, clone, copy, upgrade), renders Drafts, moves revisions through their lifecycle in git,
 * gates deletion and keeps the latest-revision label.
 */
export const PackageRevisionCapability = new Capability({
  name: "package-revision",
  description: "Reconciles PackageRevisions with their content in git.",
});

const { When } = PackageRevisionCapability;

export const packageRevisionController = new Controller(
  "PackageRevision",
  key => reconcilePackageRevision(key, operator),
  { concurrency: concurrency.workers },
);

When(PackageRevision).IsCreatedOrUpdated().Watch(packageRevisionController.enqueue);

// An edit of a revision's files (same name) is content to commit and render.
When(PackageRevisionResources).IsCreatedOrUpdated().Watch(packageRevisionController.enqueue);
