import { Log } from "pepr";
import { WatchCache } from "../lib/controller/watch-cache";
import { createContext, type Logger, type OperatorContext } from "./context";
import { renderSettings } from "./package-revision/config";
import { variantIndexers } from "./package-variant-set/variants";
import { fluentCluster } from "./shared/cluster/fluent-client";
import { RevisionCache } from "./shared/revision-cache";

/** Pepr's logger (pino) behind the context's Logger: fields first, as pino takes them. */
export const peprLogger: Logger = {
  debug: (message, fields) => Log.debug(fields ?? {}, message),
  info: (message, fields) => Log.info(fields ?? {}, message),
  warn: (message, fields) => Log.warn(fields ?? {}, message),
  error: (message, fields) => Log.error(fields ?? {}, message),
};

const cluster = fluentCluster(peprLogger);

/**
 * The one context of this process: the cluster adapter is chosen here, and every reconciler
 * and admission rule receives this object instead of reaching for singletons.
 */
export const operator: OperatorContext = createContext({
  cluster,
  log: peprLogger,
  revisions: new RevisionCache(cluster),
  variants: new WatchCache(variantIndexers),
  render: renderSettings(cluster, peprLogger),
});
