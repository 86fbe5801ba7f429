import cfg from "./package.json";
import type { Capability } from "pepr";
import { isBuiltinWorker } from "./lib/fn/builtin-pool/entry";
import { serveBuiltinWorker } from "./lib/fn/builtin-pool/worker";

/**
 * porch-pepr: Porch's package-variant automation as a Pepr module.
 * - Admission: rejects invalid specs and impossible lifecycle moves, every problem named.
 * - Watches: one watch per kind, feeding the caches and controllers of the capabilities below.
 * - Repository: mirrors each git repository's package revisions as PackageRevision objects.
 * - PackageRevision: source, render, lifecycle and deletion of each revision, in git.
 * - PackageVariant: keeps a downstream package derived from an upstream one, with mutations.
 * - PackageVariantSet: fans an upstream out to many targets as PackageVariants.
 */
const capabilities = async (): Promise<Capability[]> => [
  (await import("./capabilities/admission")).Admission,
  (await import("./capabilities/manager")).Watches,
  (await import("./capabilities/repository")).RepositoryCapability,
  (await import("./capabilities/package-revision")).PackageRevisionCapability,
  (await import("./capabilities/package-variant")).PackageVariantCapability,
  (await import("./capabilities/package-variant-set")).PackageVariantSetCapability,
];

// The bundle is also the program of the built-in function workers (lib/fn/builtin-pool). The
// capabilities and Pepr are imported lazily so that a worker loads the built-ins only: the
// whole module cost each worker about 80 MB of the watcher's memory.
if (isBuiltinWorker()) serveBuiltinWorker();
else
  Promise.all([import("./capabilities/module"), capabilities()])
    .then(([{ startModule }, list]) => startModule(cfg, list))
    .catch((error: unknown) => {
      console.error("porch-pepr failed to load", error);
      process.exit(1);
    });
