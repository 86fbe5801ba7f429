import { tuneFluentClient } from "./shared/cluster/kube-client-tuning";
import { createRequire } from "node:module";
import { outlastClientKeepAlive, readLargeAdmissionReviews } from "./shared/webhook-server-tuning";
import { Capability, Log, PeprModule } from "pepr";
import { installCustomResourceDefinitions } from "./install-crds";
import { operator, peprLogger } from "./operator";
import { startFunctionCatalog } from "./shared/function-catalog";
import { reconcilers } from "./reconcilers";

type PackageJSON = ConstructorParameters<typeof PeprModule>[0];

const isBuild = () => process.env.PEPR_MODE === "build";
const runsControllers = () =>
  process.env.PEPR_WATCH_MODE === "true" || process.env.PEPR_MODE === "dev";

/**
 * Starts the module. The controllers' process installs the CRDs before Pepr starts its watches
 * (a watch on a kind the API does not serve yet crash-loops). Both processes read the function
 * catalog before they serve (admission checks exec functions against it, the controllers
 * render with it) and then watch it. PORCH_PEPR_PORT moves the HTTPS port from Pepr's 3000, so
 * the admission and controller processes can share a host locally.
 */
export function startModule(cfg: PackageJSON, capabilities: Capability[]): void {
  if (isBuild()) {
    new PeprModule(cfg, capabilities);
    return;
  }
  // A misspelt controller name would leave the cluster without that controller, unnoticed.
  if (!reconcilers.ok) {
    Log.error(reconcilers.error);
    process.exit(1);
  }
  if (runsControllers()) Log.info(`controllers: ${reconcilers.names.join(", ")}`);
  // Set PORCH_PEPR_KUBE_CLIENT_UNTUNED=1 to measure the client without it (npm run bench).
  if (!process.env.PORCH_PEPR_KUBE_CLIENT_UNTUNED) tuneFluentClient();
  // The module object itself (an ES namespace import is a copy): Pepr calls createServer on it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  outlastClientKeepAlive(require("node:https") as typeof import("node:https"));
  // The copy of express Pepr itself loads (the bundle may hold another), resolved from Pepr.
  readLargeAdmissionReviews(createRequire(require.resolve("pepr"))("express"));
  const port = Number(process.env.PORCH_PEPR_PORT ?? 3000);
  const controllers = runsControllers();
  const ready = (
    controllers ? installCustomResourceDefinitions(operator.cluster) : Promise.resolve()
  ).then(() => startFunctionCatalog(operator.api, peprLogger, controllers));
  ready
    .then(() => new PeprModule(cfg, capabilities, { deferStart: true }).start(port))
    .catch(error => {
      Log.error({ error }, "porch-pepr failed to start");
      process.exit(1);
    });
}
