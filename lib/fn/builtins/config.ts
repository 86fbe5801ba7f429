// Reading a function's functionConfig: its kind, ConfigMap data, and custom-resource fields.
import type { Document } from "yaml";
import { apiGroup } from "../../krm/documents";
import { stringAt, stringMapAt } from "../yaml-nodes";

export const FN_CONFIG_GROUP = "fn.kpt.dev";
export const FN_CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";

export interface ConfigKind {
  apiVersion: string;
  kind: string;
  group: string;
  name: string;
}

export function configKind(config: Document | undefined): ConfigKind {
  const apiVersion = config ? (stringAt(config, ["apiVersion"]) ?? "") : "";
  return {
    apiVersion,
    kind: config ? (stringAt(config, ["kind"]) ?? "") : "",
    group: apiGroup(apiVersion),
    name: config ? (stringAt(config, ["metadata", "name"]) ?? "") : "",
  };
}

/** true when there is no config or it is an empty mapping (kpt's placeholder `{}`). */
export function isEmptyConfig(config: Document | undefined): boolean {
  if (!config) return true;
  const value: unknown = config.toJS();
  return (
    value === null ||
    value === undefined ||
    (typeof value === "object" && Object.keys(value).length === 0)
  );
}

export function isConfigMap(config: Document | undefined): boolean {
  const kind = configKind(config);
  return kind.apiVersion === "v1" && kind.kind === "ConfigMap";
}

export function configData(config: Document | undefined): Record<string, string> {
  return config ? stringMapAt(config, ["data"]) : {};
}

/** The config as plain JS (for custom-resource configs with nested fields). */
export function configObject(config: Document | undefined): Record<string, unknown> {
  const value: unknown = config?.toJS();
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** Kubernetes GroupKind.String(): `Kind.group`, or just `Kind` for the core group. */
export function groupKindString(kind: ConfigKind): string {
  return kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
}

/** A map of string values from a custom-resource config field; non-strings are stringified. */
export function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, entryText(entry)]));
}

function entryText(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : String(value);
}
