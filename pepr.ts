import cfg from "./package.json";
import { Admission } from "./capabilities/admission";
import { Watches } from "./capabilities/manager";
import { PackageRevisionCapability } from "./capabilities/package-revision";
import { PackageVariantCapability } from "./capabilities/package-variant";
import { PackageVariantSetCapability } from "./capabilities/package-variant-set";
import { RepositoryCapability } from "./capabilities/repository";
import { startModule } from "./capabilities/module";

/**
 * porch-pepr: Porch's package-variant automation as a Pepr module.
 * - Admission: rejects invalid specs and impossible lifecycle moves, every problem named.
 * - Watches: one watch per kind, feeding the caches and controllers of the capabilities below.
 * - Repository: mirrors each git repository's package revisions as PackageRevision objects.
 * - PackageRevision: source, render, lifecycle and deletion of each revision, in git.
 * - PackageVariant: keeps a downstream package derived from an upstream one, with mutations.
 * - PackageVariantSet: fans an upstream out to many targets as PackageVariants.
 */
startModule(cfg, [
  Admission,
  Watches,
  RepositoryCapability,
  PackageRevisionCapability,
  PackageVariantCapability,
  PackageVariantSetCapability,
]);
