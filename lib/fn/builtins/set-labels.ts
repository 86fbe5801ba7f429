// set-labels (krm-functions-catalog): adds labels to every resource's metadata and, like
// kustomize commonLabels, to the selectors and pod templates of well-known workload kinds.
// local-config resources are skipped.
import type { Document } from "yaml";
import { isMap, isSeq, YAMLMap } from "yaml";
import { apiGroup, krmMeta } from "../../krm/documents";
import { errorResult, infoResult, warningResult, type ResultItem } from "../results";
import type { BuiltinFunction } from "../types";
import { ensureMapAt, isLocalConfig, mapAt, nodeAt, setStringIn } from "../yaml-nodes";
import {
  configData,
  configKind,
  configObject,
  FN_CONFIG_GROUP,
  groupKindString,
  isEmptyConfig,
  stringRecord,
} from "./config";

class LabelSetter {
  count = 0;
  private readonly keys: string[];

  constructor(private readonly labels: Record<string, string>) {
    this.keys = Object.keys(labels).sort();
  }

  /** Sets every label under `path` of `parent`; creates the map only when `create`. */
  update(parent: unknown, path: string[], create: boolean): void {
    if (!isMap(parent)) return;
    let target = mapAt(parent, path);
    if (!target && create) target = ensureMapAt(parent, path);
    for (const key of this.keys) {
      // The catalog counts every label it considered, whether or not the field existed.
      this.count++;
      if (!target) continue;
      const existing = target.get(key, true);
      if (existing === undefined && !create) continue;
      setStringIn(target, key, this.labels[key]);
    }
  }
}

export const setLabels: BuiltinFunction = ({ items, functionConfig }) => {
  const results: ResultItem[] = [];
  let labels: Record<string, string>;
  if (isEmptyConfig(functionConfig)) {
    return { items, results: [errorResult("`FunctionConfig` is not given")] };
  }
  try {
    labels = readLabels(functionConfig);
  } catch (error) {
    return { items, results: [errorResult((error as Error).message)] };
  }
  const objects = items.filter(item => !isLocalConfig(item.doc));
  if (objects.length === 0) return { items, results: [infoResult("no input resources")] };
  if (Object.keys(labels).length === 0) {
    return { items, results: [warningResult("no `labels` arguments are given in FunctionConfig")] };
  }
  const setter = new LabelSetter(labels);
  for (const item of objects) labelResource(setter, item.doc);
  results.push(infoResult(`set ${setter.count} labels in total`));
  return { items, results };
};

function readLabels(config: Document | undefined): Record<string, string> {
  const kind = configKind(config);
  if (kind.kind === "ConfigMap" && kind.group === "") return configData(config);
  if (kind.kind === "SetLabels" && kind.group === FN_CONFIG_GROUP)
    return stringRecord(configObject(config).labels);
  throw new Error(
    `unknown FunctionConfig \`${groupKindString(kind)}\`, expect \`SetLabels.fn.kpt.dev\` or \`ConfigMap.v1\``,
  );
}

function labelResource(setter: LabelSetter, doc: Document): void {
  const meta = krmMeta(doc);
  const root = doc.contents;
  if (!meta || !isMap(root)) return;
  const group = apiGroup(meta.apiVersion);
  const is = (kind: string, g?: string): boolean =>
    meta.kind === kind && (g === undefined || g === group);
  setter.update(root, ["metadata", "labels"], true);
  if ((is("Service") || is("ReplicationController")) && meta.apiVersion === "v1") {
    setter.update(root, ["spec", "selector"], true);
  }
  if (is("Deployment") || is("ReplicaSet") || is("DaemonSet") || is("StatefulSet", "apps")) {
    setter.update(root, ["spec", "selector", "matchLabels"], true);
  } else if (is("Job", "batch") || is("PodDisruptionBudget", "policy")) {
    setter.update(root, ["spec", "selector", "matchLabels"], false);
  }
  const networkPolicy = is("NetworkPolicy", "networking.k8s.io");
  if (networkPolicy) setter.update(root, ["spec", "podSelector", "matchLabels"], false);
  const spec = mapAt(root, ["spec"]);
  if (!spec) return;
  const hasPodTemplate =
    (is("ReplicationController") && meta.apiVersion === "v1") ||
    is("Deployment") ||
    is("ReplicaSet") ||
    is("DaemonSet") ||
    is("StatefulSet", "apps") ||
    is("Job", "batch");
  if (hasPodTemplate) labelPodTemplate(setter, mapAt(spec, ["template"]));
  if (is("CronJob", "batch")) labelJobTemplate(setter, mapAt(spec, ["jobTemplate"]));
  if (is("StatefulSet", "apps")) {
    const claims = nodeAt(spec, ["volumeClaimTemplates"]);
    if (isSeq(claims))
      for (const claim of claims.items) setter.update(claim, ["metadata", "labels"], true);
  }
  if (networkPolicy) labelPolicyPeers(setter, spec);
}

function labelPodTemplate(setter: LabelSetter, template: YAMLMap | undefined): void {
  if (!template) return;
  setter.update(template, ["metadata", "labels"], true);
  const constraints = nodeAt(template, ["spec", "topologySpreadConstraints"]);
  if (isSeq(constraints)) {
    for (const constraint of constraints.items)
      setter.update(constraint, ["labelSelector", "matchLabels"], false);
  }
}

function labelJobTemplate(setter: LabelSetter, job: YAMLMap | undefined): void {
  if (!job) return;
  setter.update(job, ["metadata", "labels"], true);
  const spec = mapAt(job, ["spec"]);
  setter.update(spec, ["selector", "matchLabels"], false);
  labelPodTemplate(setter, spec ? mapAt(spec, ["template"]) : undefined);
}

function labelPolicyPeers(setter: LabelSetter, spec: YAMLMap): void {
  for (const [rules, peers] of [
    ["ingress", "from"],
    ["egress", "to"],
  ]) {
    const ruleList = nodeAt(spec, [rules]);
    if (!isSeq(ruleList)) continue;
    for (const rule of ruleList.items) {
      const peerList = nodeAt(rule, [peers]);
      if (!isSeq(peerList)) continue;
      for (const peer of peerList.items) setter.update(peer, ["podSelector", "matchLabels"], false);
    }
  }
}
