// ensure-name-substring (krm-functions-catalog): prepends or appends a substring to
// resource names unless already present, then updates references to the renamed
// resources and kpt depends-on annotations. CRDs, Namespaces, APIServices and Kptfiles
// are never renamed.
import type { Document } from "yaml";
import { isMap, isScalar, Scalar } from "yaml";
import { apiGroup, krmMeta } from "../../krm/documents";
import { errorResult } from "../results";
import type { BuiltinFunction } from "../types";
import { annotationsOf, scalarText, setAnnotation } from "../yaml-nodes";
import {
  configData,
  configKind,
  configObject,
  FN_CONFIG_API_VERSION,
  isEmptyConfig,
} from "./config";
import {
  additionalFieldSpecs,
  selectsResource,
  visitFieldSpec,
  type FieldSpec,
} from "./field-spec";
import { DEPENDS_ON_ANNOTATION } from "./namespace-scope";
import { fixNameReferences, type Rename } from "./name-references";

type EditMode = "prepend" | "append";

interface Settings {
  substring: string;
  editMode: EditMode;
  fields: FieldSpec[];
}

const NAME_FIELD: FieldSpec = { path: "metadata/name" };

const NEVER_RENAMED: Pick<FieldSpec, "group" | "kind">[] = [
  { kind: "CustomResourceDefinition" },
  { group: "apiregistration.k8s.io", kind: "APIService" },
  { kind: "Namespace" },
  { group: "kpt.dev", kind: "Kptfile" },
];

export const ensureNameSubstring: BuiltinFunction = ({ items, functionConfig }) => {
  let settings: Settings;
  try {
    settings = readConfig(functionConfig);
  } catch (error) {
    return {
      items,
      results: [errorResult(`failed to load the \`functionConfig\`: ${(error as Error).message}`)],
    };
  }
  const docs = items.map(item => item.doc);
  const existing = new Set(docs.map(resourceKey));
  const renames: Rename[] = [];
  for (const doc of docs) {
    if (NEVER_RENAMED.some(skip => selectsResource(skip, doc))) continue;
    for (const spec of settings.fields) {
      if (!selectsResource(spec, doc) || containsSubstring(doc, spec, settings.substring)) continue;
      if (spec.path === NAME_FIELD.path) renames.push(renameOf(doc, settings));
      visitFieldSpec(doc, spec, site => {
        const node = site.node;
        if (isScalar(node)) node.value = edit(scalarText(node), settings);
        else if ((node === undefined || node === null) && spec.create)
          site.parent.set(site.key, new Scalar(edit("", settings)));
      });
      updateDependsOn(doc, existing, settings);
    }
  }
  fixNameReferences(docs, renames);
  return { items, results: [] };
};

function readConfig(config: Document | undefined): Settings {
  if (isEmptyConfig(config)) throw new Error("functionConfig is missing");
  const kind = configKind(config);
  let substring: string;
  let editMode: EditMode = "prepend";
  let extra: FieldSpec[] = [];
  if (kind.apiVersion === "v1" && kind.kind === "ConfigMap") {
    const entries = Object.entries(configData(config));
    if (entries.length !== 1)
      throw new Error(`only 1 entry is allowed in the ConfigMap, but got: ${entries.length}`);
    const [mode, value] = entries[0];
    if (mode !== "prepend" && mode !== "append") {
      throw new Error(`unknown editMode: ${mode}, only prepend and append are allowed`);
    }
    editMode = mode;
    substring = value;
  } else if (kind.apiVersion === FN_CONFIG_API_VERSION && kind.kind === "EnsureNameSubstring") {
    const object = configObject(config);
    substring = typeof object.substring === "string" ? object.substring : "";
    if (object.editMode === "append") editMode = "append";
    else if (
      object.editMode !== undefined &&
      object.editMode !== "prepend" &&
      object.editMode !== ""
    ) {
      throw new Error(
        `unknown editMode: ${String(object.editMode)}, only prepend and append are allowed`,
      );
    }
    extra = additionalFieldSpecs(object, "additionalNameFields");
  } else {
    throw new Error(
      `function config must be either /v1, Kind=ConfigMap or ${FN_CONFIG_API_VERSION}, Kind=EnsureNameSubstring, ` +
        `but we got: ${kind.apiVersion}, Kind=${kind.kind}`,
    );
  }
  if (!substring) throw new Error("substring must not be empty");
  return { substring, editMode, fields: [NAME_FIELD, ...extra] };
}

function edit(value: string, settings: Settings): string {
  return settings.editMode === "prepend" ? settings.substring + value : value + settings.substring;
}

/** Idempotency: a field that already contains the substring is left alone. */
function containsSubstring(doc: Document, spec: FieldSpec, substring: string): boolean {
  let found = false;
  visitFieldSpec(doc, { ...spec, create: false }, site => {
    const node = site.node;
    const text = isScalar(node)
      ? scalarText(node)
      : isMap(node)
        ? JSON.stringify(node.toJSON())
        : "";
    if (text.includes(substring)) found = true;
  });
  return found;
}

function renameOf(doc: Document, settings: Settings): Rename {
  const meta = krmMeta(doc);
  const oldName = meta?.name ?? "";
  return {
    group: apiGroup(meta?.apiVersion ?? ""),
    kind: meta?.kind ?? "",
    namespace: meta?.namespace ?? "",
    oldName,
    newName: edit(oldName, settings),
  };
}

/** `group|kind|name` of every input resource, before any rename. */
function resourceKey(doc: Document): string {
  const meta = krmMeta(doc);
  return `${apiGroup(meta?.apiVersion ?? "")}|${meta?.kind ?? ""}|${meta?.name ?? ""}`;
}

/** Renames the target of a depends-on annotation when that target is part of the input. */
function updateDependsOn(doc: Document, existing: Set<string>, settings: Settings): void {
  const dependsOn = annotationsOf(doc)[DEPENDS_ON_ANNOTATION];
  if (!dependsOn) return;
  const segments = dependsOn.split("/");
  let indexes: [group: number, kind: number, name: number] | undefined;
  if (/^[-.\w]*\/namespaces\/[-.\w]*\/[-.\w]*\/[-.\w]*$/.test(dependsOn)) indexes = [0, 3, 4];
  else if (/^[-.\w]*\/[-.\w]*\/[-.\w]*$/.test(dependsOn)) indexes = [0, 1, 2];
  if (!indexes) return;
  const [group, kind, name] = indexes;
  if (!existing.has(`${segments[group]}|${segments[kind]}|${segments[name]}`)) return;
  segments[name] = edit(segments[name], settings);
  setAnnotation(doc, DEPENDS_ON_ANNOTATION, segments.join("/"));
}
