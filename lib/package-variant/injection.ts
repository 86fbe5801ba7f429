// Configuration injection, phase 2: with the in-cluster objects the caller fetched (see
// planInjection), copy ConfigMap `data` / other kinds' `spec` into each injection point, annotate
// it, and record the outcome per point in the Kptfile (conditions, readiness gates).
import type { Document, YAMLMap } from "yaml";
import { stringifyYamlFile } from "../krm/documents";
import { ensureMap, getField, plain, sameValue, setField, toNode } from "../krm/nodes";
import type { PackageFiles } from "../kpt/types";
import {
  inClusterKey,
  injectionCandidates,
  INJECTED_RESOURCE_ANNOTATION,
  LEGACY_INJECTED_RESOURCE_ANNOTATION,
  scanInjectionPoints,
  type InClusterRef,
  type InjectionPoint,
  type Injector,
} from "./injection-points";
import { setConditionsAndGates, type KptfileCondition } from "./kptfile-conditions";
import { editKptfile } from "./kptfile-edit";

/** What fetching one InClusterRef gave: the object, NotFound, or another error's message. */
export type FetchOutcome =
  | { status: "found"; object: unknown }
  | { status: "notFound" }
  | { status: "error"; message: string };

/** Outcomes keyed by inClusterKey(ref); must cover every ref planInjection listed. */
export type FetchedObjects = ReadonlyMap<string, FetchOutcome>;

export const NO_RESOURCE_MESSAGE =
  "no resource matched any injection selector for this injection point";

type PointResult = { injected: string } | { error?: string };

/** ConfigMaps take `data`, everything else `spec` (the reference's allowed injection fields). */
function injectedField(point: InjectionPoint): string {
  return point.apiVersion === "v1" && point.kind === "ConfigMap" ? "data" : "spec";
}

/** Sets the field to `value` and annotates; returns whether the document changed. */
function inject(doc: Document, point: InjectionPoint, value: unknown, name: string): boolean {
  const root = doc.contents as YAMLMap;
  const key = injectedField(point);
  let changed = false;
  if (!sameValue(plain(getField(root, key)), value)) {
    setField(root, key, toNode(value));
    changed = true;
  }
  const annotations = ensureMap(ensureMap(root, "metadata"), "annotations");
  // The reference's annotation, where a package has it, names the same object: never a stale one.
  const keys = [INJECTED_RESOURCE_ANNOTATION];
  if (getField(annotations, LEGACY_INJECTED_RESOURCE_ANNOTATION) !== undefined)
    keys.push(LEGACY_INJECTED_RESOURCE_ANNOTATION);
  for (const key of keys) {
    if (plain(getField(annotations, key)) === name) continue;
    setField(annotations, key, toNode(name));
    changed = true;
  }
  return changed;
}

function outcomeOf(fetched: FetchedObjects, ref: InClusterRef): FetchOutcome {
  const outcome = fetched.get(inClusterKey(ref));
  if (!outcome)
    throw new Error(
      `in-cluster object ${inClusterKey(ref)} was not fetched; fetch every object planInjection lists`,
    );
  return outcome;
}

/**
 * The first candidate that exists wins. A fetch error stops the search: a later candidate
 * must not win just because an earlier one could not be read.
 */
function select(
  candidates: InClusterRef[],
  fetched: FetchedObjects,
): { ref: InClusterRef; object: unknown } | { error?: string } {
  for (const ref of candidates) {
    const outcome = outcomeOf(fetched, ref);
    if (outcome.status === "found") return { ref, object: outcome.object };
    if (outcome.status === "error") return { error: outcome.message };
  }
  return {};
}

function condition(point: InjectionPoint, result: PointResult): KptfileCondition {
  if ("injected" in result) {
    return {
      type: point.conditionType,
      status: "True",
      reason: "ConfigInjected",
      message: `injected resource "${result.injected}" from cluster`,
    };
  }
  return {
    type: point.conditionType,
    status: "False",
    reason: "NoResourceSelected",
    message: result.error ?? NO_RESOURCE_MESSAGE,
  };
}

function hasField(object: unknown, field: string): object is Record<string, unknown> {
  return typeof object === "object" && object !== null && !Array.isArray(object) && field in object;
}

/**
 * Phase 2. Returns the package with every injection point filled from the first matching
 * in-cluster object and the Kptfile's conditions/gates updated. Points that get nothing keep
 * their content (an optional point's defaults). Files that do not change keep their text; a
 * package without injection points is returned as is. `deployment`: the package is in a
 * deployment repository, the only kind whose publishing the required points' gates hold back
 * (a blueprint is published unfilled, for the next variant in a chain to fill).
 */
export function injectConfig(
  files: PackageFiles,
  injectors: readonly Injector[] | undefined,
  namespace: string,
  fetched: FetchedObjects,
  deployment: boolean,
): PackageFiles {
  const { points, parsed } = scanInjectionPoints(files);
  if (points.length === 0) return files;
  const changedFiles = new Set<string>();
  const conditions = points.map(point => {
    if (!injectors?.length) return condition(point, { error: "no injectors defined" });
    const selected = select(injectionCandidates(point, injectors, namespace), fetched);
    if (!("ref" in selected)) return condition(point, selected);
    const field = injectedField(point);
    if (!hasField(selected.object, field)) {
      return condition(point, {
        error: `field "${field}" not found in resource "${selected.ref.name}"`,
      });
    }
    const doc = parsed.get(point.file)?.docs[point.index];
    if (doc && inject(doc, point, selected.object[field], selected.ref.name))
      changedFiles.add(point.file);
    return condition(point, { injected: selected.ref.name });
  });
  const out: Record<string, string> = { ...files };
  for (const file of changedFiles) {
    const yaml = parsed.get(file);
    if (yaml) out[file] = stringifyYamlFile(yaml);
  }
  return writeKptfileStatus(out, conditions, deployment ? points : []);
}

function writeKptfileStatus(
  files: Record<string, string>,
  conditions: KptfileCondition[],
  gated: InjectionPoint[],
): PackageFiles {
  const gates = gated.filter(p => p.required).map(p => p.conditionType);
  return editKptfile(files, kptfile => setConditionsAndGates(kptfile, conditions, gates));
}
