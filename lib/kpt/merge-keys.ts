// Which lists merge item by item, and by which key. Mirrors the patch merge keys
// (x-kubernetes-patch-merge-key / x-kubernetes-list-map-keys) of the built-in Kubernetes
// schemas that kyaml's merge3 uses; lists not listed here (and every list of an unknown kind)
// are atomic, as in kpt (InferAssociativeLists: false).
import { isMap, isScalar } from "yaml";
import { getField, type YNode } from "../krm/nodes";

/** The identity of a list item: `id` for matching, `label` for field paths (`name=app`). */
export interface ElementKey {
  id: string;
  label: string;
  /** The item's fields that make up the key (kyaml re-adds them to a partially merged item). */
  fields: readonly string[];
}

/** Returns the key of one item, or undefined when the item has no key (list becomes atomic). */
export type ListKeyer = (item: YNode) => ElementKey | undefined;

/** Maps a field path (map keys only, list items skipped) to the keyer of the list there. */
export type ListKeyResolver = (path: readonly string[]) => ListKeyer | undefined;

/** A keyer over one or more fields; `defaults` fill missing secondary keys (protocol → TCP). */
export function fieldsKeyer(
  fields: readonly string[],
  defaults: Readonly<Record<string, string>> = {},
): ListKeyer {
  return item => {
    if (!isMap(item)) return undefined;
    const values: string[] = [];
    const present: string[] = [];
    for (const field of fields) {
      const node = getField(item, field);
      const value = isScalar(node) && node.value !== null ? String(node.value) : defaults[field];
      if (value === undefined) return undefined;
      if (node !== undefined) present.push(field);
      values.push(value);
    }
    return {
      id: JSON.stringify(values),
      label: fields.map((field, i) => `${field}=${values[i]}`).join(","),
      fields: present,
    };
  };
}

const byName = fieldsKeyer(["name"]);
const PROTOCOL_DEFAULT = { protocol: "TCP" };

const POD_SPEC_LISTS: Readonly<Record<string, ListKeyer>> = {
  containers: byName,
  initContainers: byName,
  ephemeralContainers: byName,
  volumes: byName,
  imagePullSecrets: byName,
  resourceClaims: byName,
  schedulingGates: byName,
  hostAliases: fieldsKeyer(["ip"]),
  topologySpreadConstraints: fieldsKeyer(["topologyKey", "whenUnsatisfiable"]),
};

const CONTAINER_LISTS: Readonly<Record<string, ListKeyer>> = {
  env: byName,
  ports: fieldsKeyer(["containerPort", "protocol"], PROTOCOL_DEFAULT),
  volumeMounts: fieldsKeyer(["mountPath"]),
  volumeDevices: fieldsKeyer(["devicePath"]),
};

const CONTAINER_FIELDS = new Set(["containers", "initContainers", "ephemeralContainers"]);

/** Where the PodSpec sits in each built-in workload kind (key: `group|Kind`). */
const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
  "|Pod": ["spec"],
  "|PodTemplate": ["template", "spec"],
  "|ReplicationController": ["spec", "template", "spec"],
  "apps|Deployment": ["spec", "template", "spec"],
  "apps|StatefulSet": ["spec", "template", "spec"],
  "apps|DaemonSet": ["spec", "template", "spec"],
  "apps|ReplicaSet": ["spec", "template", "spec"],
  "batch|Job": ["spec", "template", "spec"],
  "batch|CronJob": ["spec", "jobTemplate", "spec", "template", "spec"],
};

/** Other keyed lists of built-in kinds, by `group|Kind` and dotted path. */
const OTHER_LISTS: Readonly<Record<string, Readonly<Record<string, ListKeyer>>>> = {
  "|Service": { "spec.ports": fieldsKeyer(["port", "protocol"], PROTOCOL_DEFAULT) },
  "|ServiceAccount": { secrets: byName },
};

/** API groups whose kinds have built-in schemas (so ObjectMeta lists are keyed too). */
const BUILT_IN_GROUPS = new Set([
  "",
  "apps",
  "batch",
  "autoscaling",
  "policy",
  "rbac.authorization.k8s.io",
  "networking.k8s.io",
  "storage.k8s.io",
  "scheduling.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
  "node.k8s.io",
  "apiextensions.k8s.io",
  "admissionregistration.k8s.io",
  "certificates.k8s.io",
]);

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => path[i] === segment);
}

function podSpecList(prefix: readonly string[], path: readonly string[]): ListKeyer | undefined {
  if (!startsWith(path, prefix)) return undefined;
  const rest = path.slice(prefix.length);
  if (rest.length === 1) return POD_SPEC_LISTS[rest[0]];
  if (rest.length === 2 && CONTAINER_FIELDS.has(rest[0])) return CONTAINER_LISTS[rest[1]];
  return undefined;
}

/** List keys of the built-in Kubernetes kind `group`/`kind`; every list is atomic for other kinds. */
export function kubernetesListKeys(group: string, kind: string): ListKeyResolver {
  const gk = `${group}|${kind}`;
  if (!BUILT_IN_GROUPS.has(group)) return () => undefined;
  const podSpec = POD_SPEC_PATHS[gk];
  const others = OTHER_LISTS[gk] ?? {};
  return path => {
    if (path.length === 2 && path[0] === "metadata" && path[1] === "ownerReferences")
      return fieldsKeyer(["uid"]);
    return (podSpec && podSpecList(podSpec, path)) || others[path.join(".")];
  };
}
