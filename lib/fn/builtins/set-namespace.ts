// set-namespace (krm-functions-catalog): moves all namespaced resources to one namespace,
// renames the Namespace object, and updates namespace references (RoleBinding and
// ClusterRoleBinding subjects, CRD conversion webhook and APIService services, kpt
// depends-on annotations). local-config resources are left alone.
import type { Document } from "yaml";
import { isMap, isSeq } from "yaml";
import { apiGroup, krmMeta } from "../../krm/documents";
import { errorResult, infoResult, warningResult, type ResultItem } from "../results";
import type { BuiltinFunction } from "../types";
import {
  annotationsOf,
  goList,
  isLocalConfig,
  mapAt,
  quote,
  rootMap,
  setAnnotation,
  setStringIn,
  stringAt,
} from "../yaml-nodes";
import { configData, configKind, configObject, FN_CONFIG_GROUP, isEmptyConfig } from "./config";
import {
  CLUSTER_NAMESPACE,
  currentId,
  DEPENDS_ON_ANNOTATION,
  dependsOnKey,
  hasUpstreamOrigin,
  NAMESPACED_DEPENDS_ON,
  originId,
  scopeResolver,
  shortString,
  type ScopeOf,
} from "./namespace-scope";

interface Settings {
  namespace: string;
  matcher: string;
}

/** One namespace-valued field: its origin namespace, current value, and how to write it. */
interface NamespaceField {
  origin: string;
  value: string;
  set(value: string): void;
  label?: string;
}

export const setNamespace: BuiltinFunction = ({ items, functionConfig }) => {
  let settings: Settings;
  try {
    settings = readConfig(functionConfig);
  } catch (error) {
    const kind = configKind(functionConfig);
    const result = errorResult((error as Error).message);
    if (kind.kind)
      result.resourceRef = { apiVersion: kind.apiVersion, kind: kind.kind, name: kind.name };
    return { items, results: [result] };
  }
  const objects = items.filter(item => !isLocalConfig(item.doc)).map(item => item.doc);
  const isNamespaced = scopeResolver(items);
  const dependsOnTargets = new Set(
    objects
      .map(doc => currentId(doc, isNamespaced))
      .filter(id => id.namespace !== CLUSTER_NAMESPACE)
      .map(dependsOnKey),
  );
  const results: ResultItem[] = [];
  const origins = new Set<string>();
  for (const doc of objects) {
    if (!hasUpstreamOrigin(doc)) {
      results.push(warningResult(`${shortString(doc)} does not have upstream origin.`));
    } else if (isNamespaced(doc)) {
      origins.add(originId(doc, isNamespaced).namespace);
    }
  }
  if (!settings.matcher && origins.size > 1) {
    const found = goList([...origins].sort());
    return {
      items,
      results: [
        errorResult(
          `unable to use origin \`namespace\` to match. expect a single upstream namespace, found ${found}. ` +
            "please switch to use `namespaceMatcher`to specify the namespace value you want to change",
        ),
      ],
    };
  }
  results.push(...replaceNamespaces(objects, isNamespaced, settings));
  results.push(...updateDependsOn(objects, dependsOnTargets, settings));
  return { items, results };
};

function readConfig(config: Document | undefined): Settings {
  const kind = configKind(config);
  if (isEmptyConfig(config)) {
    throw new Error(
      "FunctionConfig is missing. Expect `ConfigMap.v1` or `SetNamespace.v1alpha1.fn.kpt.dev`",
    );
  }
  if (kind.kind === "ConfigMap" && kind.apiVersion === "v1") {
    const data = configData(config);
    const matcher = data.namespaceMatcher ?? "";
    if (data.namespace) return { namespace: data.namespace, matcher };
    // The package context ConfigMap (kptfile.kpt.dev) names the namespace in data.name.
    if (kind.name === "kptfile.kpt.dev") {
      if (data.name) return { namespace: data.name, matcher };
      throw new Error("`data.name` should not be empty");
    }
    throw new Error("`data.namespace` should not be empty");
  }
  if (kind.kind === "SetNamespace" && kind.apiVersion === `${FN_CONFIG_GROUP}/v1alpha1`) {
    const object = configObject(config);
    const namespace = typeof object.namespace === "string" ? object.namespace : "";
    if (!namespace) throw new Error("`namespace` should not be empty");
    return {
      namespace,
      matcher: typeof object.namespaceMatcher === "string" ? object.namespaceMatcher : "",
    };
  }
  throw new Error(
    `unknown functionConfig Kind=${kind.kind} ApiVersion=${kind.apiVersion}, expect \`ConfigMap.v1\` or \`SetNamespace.v1alpha1.fn.kpt.dev\``,
  );
}

function replaceNamespaces(
  objects: Document[],
  isNamespaced: ScopeOf,
  settings: Settings,
): ResultItem[] {
  const results: ResultItem[] = [];
  const previous = new Set<string>();
  let count = 0;
  for (const field of namespaceFields(objects, isNamespaced)) {
    if (field.origin === CLUSTER_NAMESPACE) continue;
    const current = field.value === "" ? "default" : field.value;
    if (current === settings.namespace) continue;
    let change = !settings.matcher;
    if (settings.matcher) {
      if (settings.matcher === field.origin) {
        results.push(infoResult(`[${field.label ?? ""}] has matching origin ${field.origin}`));
      }
      change = settings.matcher === current || settings.matcher === field.origin;
    }
    if (!change) continue;
    previous.add(current);
    field.set(settings.namespace);
    count++;
  }
  const message =
    count === 0
      ? `all matching namespaces are already ${quote(settings.namespace)}. no value changed`
      : `namespace ${goList([...previous].sort())} updated to ${quote(settings.namespace)}, ${count} value(s) changed`;
  results.push(infoResult(message));
  return results;
}

/** Special fields of cluster-scoped kinds first, then metadata.namespace, as the catalog walks them. */
function namespaceFields(objects: Document[], isNamespaced: ScopeOf): NamespaceField[] {
  const special: NamespaceField[] = [];
  const namespaced: NamespaceField[] = [];
  for (const doc of objects) {
    const meta = krmMeta(doc);
    const root = rootMap(doc);
    if (!meta || !root) continue;
    const group = apiGroup(meta.apiVersion);
    if (meta.kind === "Namespace" && meta.apiVersion === "v1") {
      const metadata = mapAt(root, ["metadata"]);
      special.push({
        origin: originId(doc, isNamespaced).name,
        value: meta.name,
        set: value => metadata && setStringIn(metadata, "name", value),
        label: shortString(doc),
      });
    } else if (meta.kind === "CustomResourceDefinition" && group === "apiextensions.k8s.io") {
      serviceField(
        special,
        mapAt(root, ["spec", "conversion", "webhook", "clientConfig", "service"]),
      );
    } else if (meta.kind === "APIService" && group === "apiregistration.k8s.io") {
      serviceField(special, mapAt(root, ["spec", "service"]));
    }
    if (meta.kind === "ClusterRoleBinding" || meta.kind === "RoleBinding")
      subjectFields(special, root.get("subjects", true));
    if (isNamespaced(doc)) {
      namespaced.push({
        origin: originId(doc, isNamespaced).namespace,
        value: meta.namespace,
        set: value => {
          const metadata = mapAt(root, ["metadata"]);
          if (metadata) setStringIn(metadata, "namespace", value);
        },
        label: shortString(doc),
      });
    }
  }
  return [...special, ...namespaced];
}

/** `<service>.namespace` of webhook-style references; only where the service is declared. */
function serviceField(fields: NamespaceField[], service: ReturnType<typeof mapAt>): void {
  if (!service) return;
  fields.push({
    origin: "",
    value: stringAt(service, ["namespace"]) ?? "",
    set: value => setStringIn(service, "namespace", value),
  });
}

function subjectFields(fields: NamespaceField[], subjects: unknown): void {
  if (!isSeq(subjects)) return;
  for (const subject of subjects.items) {
    if (!isMap(subject) || !subject.has("namespace")) continue;
    fields.push({
      origin: "",
      value: stringAt(subject, ["namespace"]) ?? "",
      set: next => setStringIn(subject, "namespace", next),
    });
  }
}

function updateDependsOn(
  objects: Document[],
  targets: Set<string>,
  settings: Settings,
): ResultItem[] {
  const previous = new Set<string>();
  let count = 0;
  for (const doc of objects) {
    const annotation = annotationsOf(doc)[DEPENDS_ON_ANNOTATION];
    if (!annotation || !NAMESPACED_DEPENDS_ON.test(annotation) || !targets.has(annotation))
      continue;
    const segments = annotation.split("/");
    if (segments[2] === settings.namespace) continue;
    if (settings.matcher && settings.matcher !== segments[2]) continue;
    previous.add(segments[2]);
    segments[2] = settings.namespace;
    setAnnotation(doc, DEPENDS_ON_ANNOTATION, segments.join("/"));
    count++;
  }
  if (count === 0)
    return [infoResult("all `depends-on` annotations are up-to-date. no `namespace` changed")];
  return [
    infoResult(
      `\`depends-on\` annotation namespace ${goList([...previous].sort())} updated to ${quote(settings.namespace)}, ${count} value(s) changed`,
    ),
  ];
}
