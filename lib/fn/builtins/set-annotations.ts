// set-annotations (krm-functions-catalog): adds annotations to every resource's
// metadata and to the pod templates of workloads (kustomize commonAnnotations field specs),
// plus any `additionalAnnotationFields`.
import { isMap, YAMLMap } from "yaml";
import { errorResult, type ResultItem } from "../results";
import type { BuiltinFunction } from "../types";
import { setStringIn } from "../yaml-nodes";
import {
  configData,
  configKind,
  configObject,
  FN_CONFIG_API_VERSION,
  stringRecord,
} from "./config";
import { additionalFieldSpecs, visitFieldSpec, type FieldSpec } from "./field-spec";

const COMMON_ANNOTATION_FIELDS: FieldSpec[] = [
  { path: "metadata/annotations", create: true },
  {
    path: "spec/template/metadata/annotations",
    create: true,
    version: "v1",
    kind: "ReplicationController",
  },
  { path: "spec/template/metadata/annotations", create: true, kind: "Deployment" },
  { path: "spec/template/metadata/annotations", create: true, kind: "ReplicaSet" },
  { path: "spec/template/metadata/annotations", create: true, kind: "DaemonSet" },
  { path: "spec/template/metadata/annotations", create: true, kind: "StatefulSet" },
  { path: "spec/template/metadata/annotations", create: true, group: "batch", kind: "Job" },
  { path: "spec/jobTemplate/metadata/annotations", create: true, group: "batch", kind: "CronJob" },
  {
    path: "spec/jobTemplate/spec/template/metadata/annotations",
    create: true,
    group: "batch",
    kind: "CronJob",
  },
];

interface Settings {
  annotations: Record<string, string>;
  fields: FieldSpec[];
}

export const setAnnotations: BuiltinFunction = ({ items, functionConfig }) => {
  let settings: Settings;
  try {
    settings = readConfig(functionConfig);
  } catch (error) {
    return {
      items,
      results: [errorResult(`failed to configure function: ${(error as Error).message}`)],
    };
  }
  const keys = Object.keys(settings.annotations).sort();
  const applied = new Map<string, { result: ResultItem; values: Record<string, string> }>();
  for (const item of items) {
    for (const spec of settings.fields) {
      visitFieldSpec(item.doc, spec, site => {
        let target = site.node;
        if (!isMap(target)) {
          if (!spec.create || (target !== undefined && target !== null)) return;
          target = new YAMLMap();
          site.parent.set(site.key, target);
        }
        const fieldPath = site.fieldPath.join(".");
        const id = `${item.path}\u0000${item.index}\u0000${fieldPath}`;
        const entry = applied.get(id) ?? {
          // kpt omits index 0 (omitempty), so results read the same as the catalog's.
          result: {
            message: "",
            field: { path: fieldPath },
            file: item.index > 0 ? { path: item.path, index: item.index } : { path: item.path },
          },
          values: {},
        };
        for (const key of keys) {
          setStringIn(target as YAMLMap, key, settings.annotations[key]);
          entry.values[key] = settings.annotations[key];
        }
        applied.set(id, entry);
      });
    }
  }
  return { items, results: toResults([...applied.values()]) };
};

function toResults(
  entries: { result: ResultItem; values: Record<string, string> }[],
): ResultItem[] {
  if (entries.length === 0) return [{ message: "no annotations applied" }];
  const results = entries.map(({ result, values }) => {
    const sorted = Object.fromEntries(
      Object.keys(values)
        .sort()
        .map(key => [key, values[key]]),
    );
    return { ...result, message: `set annotations: ${JSON.stringify(sorted)}` };
  });
  // kyaml's Results.Sort: by file path, then index, then text.
  return results.sort(
    (a, b) =>
      (a.file?.path ?? "").localeCompare(b.file?.path ?? "") ||
      (a.file?.index ?? 0) - (b.file?.index ?? 0) ||
      (a.field?.path ?? "").localeCompare(b.field?.path ?? ""),
  );
}

function readConfig(config: Parameters<BuiltinFunction>[0]["functionConfig"]): Settings {
  const kind = configKind(config);
  let annotations: Record<string, string>;
  let extra: FieldSpec[] = [];
  if (kind.apiVersion === "v1" && kind.kind === "ConfigMap") {
    annotations = configData(config);
  } else if (
    kind.apiVersion === FN_CONFIG_API_VERSION &&
    (kind.kind === "SetAnnotations" || kind.kind === "SetAnnotationConfig")
  ) {
    const object = configObject(config);
    annotations = stringRecord(object.annotations);
    extra = additionalFieldSpecs(object, "additionalAnnotationFields");
  } else {
    throw new Error("`functionConfig` must be a `ConfigMap` or `SetAnnotations`");
  }
  if (Object.keys(annotations).length === 0)
    throw new Error("input annotation list cannot be empty");
  return { annotations, fields: [...extra, ...COMMON_ANNOTATION_FIELDS] };
}
