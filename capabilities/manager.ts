import { Capability } from "pepr";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageVariant,
  PackageVariantSet,
  Repository,
} from "../crd-types";
import { Manager, type WatchedObject, type WatchPhase } from "../lib/controller/manager";
import type { OperatorContext } from "./context";
import { operator, peprLogger } from "./operator";
import { Controller, serveFetchMemoryUse } from "./shared/controller";
import { shares } from "./package-revision/config";
import { errorMessage } from "../lib/errors";
import { runsController } from "./reconcilers";

/**
 * The controller manager of this process (lib/controller/manager.ts): one Pepr watch per kind,
 * one slim indexed cache per kind, and the controllers each capability declares as data
 * (`manager.controller({...})` in its index.ts), each with its own work queue; only those
 * PORCH_PEPR_RECONCILERS names run (capabilities/reconcilers.ts).
 */
export const manager = new Manager<OperatorContext>(
  () => operator,
  (spec, reconcile) =>
    new Controller(spec.name, reconcile, {
      ...(spec.concurrency !== undefined && { concurrency: spec.concurrency }),
      ...(shares.workers !== undefined && { perNamespace: shares.workers }),
    }).queue,
  runsController,
);
serveFetchMemoryUse();

/** The kinds watched, with what is dropped from each object before it is held. */
manager.kind<PackageRevision>("PackageRevision", { cache: operator.caches.revisions.cache });
/**
 * Of a PackageRevisionResources only its version matters here (whether the files changed; the
 * revision's reconcile reads them, and the render status, from the API): the watch keeps no
 * copy of every package's files or function results.
 */
export function slimResources(prr: PackageRevisionResources): void {
  if (prr.spec) delete prr.spec.resources;
  delete prr.status;
}

manager.kind<PackageRevisionResources>("PackageRevisionResources", {
  cache: operator.caches.resources,
  slim: slimResources,
});
manager.kind<PackageVariant>("PackageVariant", { cache: operator.caches.variants });
manager.kind<PackageVariantSet>("PackageVariantSet", { cache: operator.caches.sets });
manager.kind<Repository>("Repository", { cache: operator.caches.repositories });

/** The Pepr capability that holds the manager's watches: one binding per kind. */
export const Watches = new Capability({
  name: "watches",
  description:
    "One watch per kind, feeding the caches and the controllers of the other capabilities.",
});

const models = {
  PackageRevision,
  PackageRevisionResources,
  PackageVariant,
  PackageVariantSet,
  Repository,
};

/**
 * Pepr 1.1.4 offers a watch for created-or-updated and another for deleted objects, each its
 * own API watch keeping its own copy of every object; its "any event" binding has no public
 * chain. The binding is declared as created-or-updated and then widened to every event, so
 * each kind is watched once. Pepr maps a binding's event to the phases it passes on.
 */
const ANY_EVENT = "*";

for (const [kind, model] of Object.entries(models)) {
  const onEvent = (obj: WatchedObject, phase: string) =>
    manager.onEvent(kind, obj, phase as WatchPhase, error =>
      peprLogger.error(`${kind} event: ${errorMessage(error)}`),
    );
  Watches.When(model).IsCreatedOrUpdated().Watch(onEvent);
}
// Pepr registers watch bindings only where it runs them (the watcher, `pepr dev`, the build).
for (const binding of Watches.bindings as { isWatch?: boolean; event: string }[])
  if (binding.isWatch) binding.event = ANY_EVENT;
