// After resources are renamed, fields that refer to them by name must follow (kustomize's
// nameReference configuration: ConfigMaps in pod volumes and env, roleRef, subjects, ...).
import type { Document } from "yaml";
import { isMap, isScalar, isSeq, YAMLMap } from "yaml";
import { krmMeta } from "../../krm/documents";
import { builtinNamespaceScoped } from "../../krm/scope";
import { scalarText, setStringIn } from "../yaml-nodes";
import { visitFieldSpec, type FieldSpec } from "./field-spec";

export interface Rename {
  group: string;
  kind: string;
  namespace: string;
  oldName: string;
  newName: string;
}

interface Reference {
  kind: string;
  group?: string;
  referrers: FieldSpec[];
}

const POD_SPEC_HOLDERS: [kind: string, prefix: string][] = [
  ["Pod", "spec"],
  ["PodTemplate", "template/spec"],
  ["ReplicationController", "spec/template/spec"],
  ["Deployment", "spec/template/spec"],
  ["ReplicaSet", "spec/template/spec"],
  ["DaemonSet", "spec/template/spec"],
  ["StatefulSet", "spec/template/spec"],
  ["Job", "spec/template/spec"],
  ["CronJob", "spec/jobTemplate/spec/template/spec"],
];

function inPodSpecs(...paths: string[]): FieldSpec[] {
  return POD_SPEC_HOLDERS.flatMap(([kind, prefix]) =>
    paths.map(path => ({ kind, path: `${prefix}/${path}` })),
  );
}

const inBothContainerLists = (path: string): string[] => [
  `containers/${path}`,
  `initContainers/${path}`,
];
const ROLE_RESOURCE_NAMES: FieldSpec[] = [
  { kind: "Role", path: "rules/resourceNames" },
  { kind: "ClusterRole", path: "rules/resourceNames" },
];
const SCALE_TARGET: FieldSpec[] = [
  { kind: "HorizontalPodAutoscaler", path: "spec/scaleTargetRef/name" },
];

const REFERENCES: Reference[] = [
  { kind: "Deployment", referrers: SCALE_TARGET },
  { kind: "ReplicationController", referrers: SCALE_TARGET },
  { kind: "ReplicaSet", referrers: SCALE_TARGET },
  { kind: "StatefulSet", referrers: SCALE_TARGET },
  {
    kind: "ConfigMap",
    group: "",
    referrers: [
      ...inPodSpecs(
        "volumes/configMap/name",
        "volumes/projected/sources/configMap/name",
        ...inBothContainerLists("env/valueFrom/configMapKeyRef/name"),
        ...inBothContainerLists("envFrom/configMapRef/name"),
      ),
      ...ROLE_RESOURCE_NAMES,
    ],
  },
  {
    kind: "Secret",
    group: "",
    referrers: [
      ...inPodSpecs(
        "volumes/secret/secretName",
        "volumes/projected/sources/secret/name",
        "imagePullSecrets/name",
        ...inBothContainerLists("env/valueFrom/secretKeyRef/name"),
        ...inBothContainerLists("envFrom/secretRef/name"),
      ),
      { kind: "Ingress", path: "spec/tls/secretName" },
      { kind: "ServiceAccount", path: "imagePullSecrets/name" },
      ...["secretName", "adminSecretName", "userSecretName", "secretRef"].map(p => ({
        kind: "StorageClass",
        path: `parameters/${p}`,
      })),
      { kind: "PersistentVolume", path: "spec/azureFile/secretName" },
      ...ROLE_RESOURCE_NAMES,
    ],
  },
  {
    kind: "Service",
    group: "",
    referrers: [
      { kind: "StatefulSet", group: "apps", path: "spec/serviceName" },
      ...[
        "spec/rules/http/paths/backend/serviceName",
        "spec/backend/serviceName",
        "spec/rules/http/paths/backend/service/name",
        "spec/defaultBackend/service/name",
      ].map(path => ({ kind: "Ingress", path })),
      { kind: "APIService", group: "apiregistration.k8s.io", path: "spec/service/name" },
      { kind: "ValidatingWebhookConfiguration", path: "webhooks/clientConfig/service" },
      { kind: "MutatingWebhookConfiguration", path: "webhooks/clientConfig/service" },
    ],
  },
  {
    kind: "Role",
    group: "rbac.authorization.k8s.io",
    referrers: [{ kind: "RoleBinding", path: "roleRef/name" }],
  },
  {
    kind: "ClusterRole",
    group: "rbac.authorization.k8s.io",
    referrers: [
      { kind: "RoleBinding", path: "roleRef/name" },
      { kind: "ClusterRoleBinding", path: "roleRef/name" },
    ],
  },
  {
    kind: "ServiceAccount",
    group: "",
    referrers: [
      { kind: "RoleBinding", path: "subjects" },
      { kind: "ClusterRoleBinding", path: "subjects" },
      ...inPodSpecs("serviceAccountName"),
    ],
  },
  {
    kind: "PersistentVolumeClaim",
    group: "",
    referrers: inPodSpecs("volumes/persistentVolumeClaim/claimName"),
  },
  {
    kind: "PersistentVolume",
    group: "",
    referrers: [
      { kind: "PersistentVolumeClaim", path: "spec/volumeName" },
      { kind: "ClusterRole", path: "rules/resourceNames" },
    ],
  },
  {
    kind: "StorageClass",
    group: "storage.k8s.io",
    referrers: [
      { kind: "PersistentVolume", path: "spec/storageClassName" },
      { kind: "PersistentVolumeClaim", path: "spec/storageClassName" },
      { kind: "StatefulSet", path: "spec/volumeClaimTemplates/spec/storageClassName" },
    ],
  },
  { kind: "PriorityClass", group: "scheduling.k8s.io", referrers: inPodSpecs("priorityClassName") },
  {
    kind: "IngressClass",
    group: "networking.k8s.io",
    referrers: [{ kind: "Ingress", path: "spec/ingressClassName" }],
  },
  {
    kind: "ValidatingAdmissionPolicy",
    group: "admissionregistration.k8s.io",
    referrers: [{ kind: "ValidatingAdmissionPolicyBinding", path: "spec/policyName" }],
  },
];

/** Updates every field of `docs` that refers to a renamed resource by its old name. */
export function fixNameReferences(docs: readonly Document[], renames: readonly Rename[]): void {
  for (const rename of renames) {
    for (const reference of REFERENCES) {
      if (
        reference.kind !== rename.kind ||
        (reference.group !== undefined && reference.group !== rename.group)
      )
        continue;
      for (const doc of docs) {
        for (const spec of reference.referrers) {
          visitFieldSpec(doc, spec, site =>
            updateField(site.parent, site.key, site.node, rename, referrerNamespace(doc)),
          );
        }
      }
    }
  }
}

/** The referrer's namespace, or undefined when it is cluster-scoped (it may refer anywhere). */
function referrerNamespace(doc: Document): string | undefined {
  const meta = krmMeta(doc);
  if (!meta) return undefined;
  const slash = meta.apiVersion.indexOf("/");
  const group = slash < 0 ? "" : meta.apiVersion.slice(0, slash);
  if (builtinNamespaceScoped(group, meta.kind) === false) return undefined;
  return meta.namespace || "default";
}

function sameNamespace(rename: Rename, namespace: string | undefined): boolean {
  return (
    namespace === undefined ||
    rename.namespace === "" ||
    (rename.namespace || "default") === namespace
  );
}

function updateField(
  parent: YAMLMap,
  key: string,
  node: unknown,
  rename: Rename,
  namespace: string | undefined,
): void {
  if (isScalar(node)) {
    // roleRef and scaleTargetRef name their target's kind next to the name.
    const kind = parent.get("kind");
    if (typeof kind === "string" && kind !== rename.kind) return;
    if (scalarText(node) === rename.oldName && sameNamespace(rename, namespace))
      node.value = rename.newName;
  } else if (isSeq(node)) {
    node.items.forEach(element => {
      if (
        isScalar(element) &&
        scalarText(element) === rename.oldName &&
        sameNamespace(rename, namespace)
      ) {
        element.value = rename.newName;
      } else if (isMap(element)) {
        updateObjectReference(element, rename, namespace);
      }
    });
  } else if (isMap(node)) {
    updateObjectReference(node, rename, namespace);
  }
}

/** `{kind?, name, namespace?}` references such as RBAC subjects and webhook services. */
function updateObjectReference(ref: YAMLMap, rename: Rename, namespace: string | undefined): void {
  const kind = ref.get("kind");
  if (typeof kind === "string" && kind !== rename.kind) return;
  if (ref.get("name") !== rename.oldName) return;
  const refNamespace = ref.get("namespace");
  if (!sameNamespace(rename, typeof refNamespace === "string" ? refNamespace : namespace)) return;
  setStringIn(ref, "name", rename.newName);
}
