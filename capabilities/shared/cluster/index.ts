import { Log } from "pepr";
import { fluentCluster } from "./fluent-client";

/** The cluster the operator runs against: the one place an adapter is chosen. */
export const cluster = fluentCluster({ warn: message => Log.warn(message) });
