import { ConfigMapKind, type ConfigMap } from "../../lib/cluster/kinds";
import type { Cluster, KubeObject, Watch } from "../../lib/cluster/port";
import { errorMessage } from "../../lib/errors";
import {
  BUILTIN_FUNCTIONS,
  CatalogHolder,
  describeCatalog,
  formatProblems,
  type CatalogChange,
} from "../../lib/fn";
import type { Logger } from "../context";

/**
 * Pepr deploys every module into pepr-system (its own store lives there too), and Pepr passes
 * its Pods no namespace of their own: the catalog is looked for in that fixed namespace.
 */
export const MODULE_NAMESPACE = "pepr-system";

/** The administrator's function catalog (docs/function-catalog.md). */
export const FUNCTION_CATALOG = { namespace: MODULE_NAMESPACE, name: "porch-pepr-functions" };

const ORIGIN = `ConfigMap ${FUNCTION_CATALOG.namespace}/${FUNCTION_CATALOG.name}`;

/**
 * The catalog this process uses: the one source for the render (controller process) and for
 * admission's exec checks (webhook process). Each process feeds its own from the same
 * ConfigMap (feedFunctionCatalog); until the first read, the built-in defaults.
 */
export const functionCatalog = new CatalogHolder({
  origin: ORIGIN,
  builtinNames: Object.keys(BUILTIN_FUNCTIONS),
});

/** Event messages are shown whole by kubectl describe; the API keeps them short. */
const MAX_EVENT_MESSAGE = 1024;
const short = (text: string) =>
  text.length <= MAX_EVENT_MESSAGE ? text : `${text.slice(0, MAX_EVENT_MESSAGE - 1)}…`;

export interface CatalogFeedOptions {
  /** Record Events on the ConfigMap: one process does (the controllers'), not every replica. */
  events: boolean;
  /** After the catalog in use changed (not after a refused one). */
  onChange?: () => void;
}

const isCatalog = (obj: KubeObject) =>
  obj.metadata?.namespace === FUNCTION_CATALOG.namespace &&
  obj.metadata?.name === FUNCTION_CATALOG.name;

/**
 * Keeps `holder` on what the ConfigMap says: one read now (so the process starts with the
 * administrator's catalog, not the defaults), then a watch of that one object, so a change
 * takes effect without a restart. A refused catalog is logged as an error and, with `events`,
 * recorded as a Warning on the ConfigMap; the catalog in use stays.
 */
export async function feedFunctionCatalog(
  cluster: Cluster,
  holder: CatalogHolder,
  log: Logger,
  options: CatalogFeedOptions,
): Promise<Watch> {
  const report = async (change: CatalogChange, cm: KubeObject | undefined): Promise<void> => {
    switch (change.kind) {
      case "unchanged":
        return;
      case "rejected": {
        const message = `function catalog in ${ORIGIN} refused (the catalog in use stays: ${describeCatalog(holder.current().catalog)}): ${formatProblems(change.rejected.problems)}`;
        log.error(message);
        if (options.events && cm)
          await cluster.event(cm, "Warning", "FunctionCatalogInvalid", short(message));
        return;
      }
      case "loaded": {
        const message = `function catalog in use: ${describeCatalog(change.catalog)}`;
        log.info(message);
        if (options.events && cm)
          await cluster.event(cm, "Normal", "FunctionCatalogLoaded", short(message));
        break;
      }
      case "defaults":
        log.info(
          `no ${ORIGIN}: the function catalog is ${describeCatalog(holder.current().catalog)}`,
        );
        break;
    }
    options.onChange?.();
  };
  // A watch's initial LIST delivers items without kind: the Event names it anyway.
  const involved = (cm: ConfigMap) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: cm.metadata,
  });
  const apply = (cm: ConfigMap | undefined): Promise<void> =>
    report(holder.update(cm ? (cm.data ?? {}) : undefined), cm && involved(cm)).catch(error =>
      log.error(`function catalog: ${errorMessage(error)}`),
    );
  try {
    await apply(await cluster.get(ConfigMapKind, FUNCTION_CATALOG));
  } catch (error) {
    log.error(
      `function catalog: cannot read ${ORIGIN} (${errorMessage(error)}); ${describeCatalog(holder.current().catalog)} until its watch delivers it`,
    );
  }
  return cluster.watch(
    ConfigMapKind,
    (obj, phase) => {
      if (isCatalog(obj)) void apply(phase === "DELETED" ? undefined : (obj as ConfigMap));
    },
    FUNCTION_CATALOG,
  );
}

const listeners: (() => void)[] = [];

/** Runs `listener` after every change of the catalog in use (the controllers retry what it failed). */
export function onFunctionCatalogChange(listener: () => void): void {
  listeners.push(listener);
}

/** The settings the catalog replaced: left set, they would seem to allow what they no longer do. */
const RETIRED_SETTINGS = ["PORCH_PEPR_ALLOW_EXEC", "PORCH_PEPR_EXEC_ALLOWLIST"];

/** Feeds this process's catalog; only the controllers' process records Events. */
export function startFunctionCatalog(
  cluster: Cluster,
  log: Logger,
  controllers: boolean,
): Promise<Watch> {
  const retired = RETIRED_SETTINGS.filter(name => process.env[name] !== undefined);
  if (retired.length > 0)
    log.error(
      `${retired.join(" and ")} no longer ${retired.length > 1 ? "have" : "has"} any effect: exec functions run only as the function catalog (${ORIGIN}) says; see docs/function-catalog.md, "Migrating from the exec allow-list"`,
    );
  return feedFunctionCatalog(cluster, functionCatalog, log, {
    events: controllers,
    onChange: () => listeners.forEach(listener => listener()),
  });
}
