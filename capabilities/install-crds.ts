import { Log } from "pepr";
import { crdManifests } from "../crd-types";
import type { Cluster } from "../lib/cluster/port";
import { CustomResourceDefinitionKind } from "../lib/cluster/kinds";

const ESTABLISHED_TIMEOUT_MS = 60_000;
/** Pepr's K8s().Apply used "pepr"; kept so an upgrade takes over the fields it applied. */
const FIELD_MANAGER = "pepr";

async function established(cluster: Cluster, name: string): Promise<boolean> {
  const crd = await cluster.get(CustomResourceDefinitionKind, { name });
  return (crd?.status?.conditions ?? []).some(c => c.type === "Established" && c.status === "True");
}

async function waitEstablished(cluster: Cluster, name: string): Promise<void> {
  const deadline = Date.now() + ESTABLISHED_TIMEOUT_MS;
  while (!(await established(cluster, name))) {
    if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after 60s`);
    await new Promise(r => setTimeout(r, 500));
  }
}

/**
 * Installs (server-side applies) the module's CRDs, so `npx pepr deploy` alone yields a working
 * install, and waits until the API serves them: the watches start right after.
 */
export async function installCustomResourceDefinitions(cluster: Cluster): Promise<void> {
  for (const crd of crdManifests) {
    const name = crd.metadata.name;
    try {
      await cluster.apply(CustomResourceDefinitionKind, crd, FIELD_MANAGER);
    } catch (error) {
      // Without permission to write CRDs (a scoped install) the ones installed by hand still work.
      Log.warn({ crd: name, error }, "could not apply CRD; using the installed one if present");
    }
    await waitEstablished(cluster, name);
  }
  Log.info(`CRDs established: ${crdManifests.map(c => c.metadata.name).join(", ")}`);
}
