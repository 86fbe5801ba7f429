// Configuration injection, phase 1 (docs/package-variants.md, “Configuration injection”): the
// package's injection points and, given the injectors, which in-cluster objects the caller must
// fetch.
import type { PackageVariantSpec } from "../../crd-types";
import {
  apiGroup,
  isKrmPath,
  krmMeta,
  parseYamlFile,
  YamlParseError,
  type YamlFile,
} from "../krm/documents";
import { getPath, plain } from "../krm/nodes";
import type { PackageFiles } from "../kpt/types";
import { MutationError } from "./errors";

export const CONFIG_INJECTION_ANNOTATION = "kpt.dev/config-injection";
/** Names the in-cluster object injected into a point (the design's annotation). */
export const INJECTED_RESOURCE_ANNOTATION = "kpt.dev/injected-resource-name";
/** What the reference implementation writes; packages made by it carry this one. */
export const LEGACY_INJECTED_RESOURCE_ANNOTATION = "kpt.dev/injected-resource";

/** The injected object's name an injection point records, under either annotation. */
export function injectedResourceName(
  annotations: Record<string, unknown> | undefined,
): string | undefined {
  const value =
    annotations?.[INJECTED_RESOURCE_ANNOTATION] ??
    annotations?.[LEGACY_INJECTED_RESOURCE_ANNOTATION];
  return typeof value === "string" ? value : undefined;
}

export type Injector = NonNullable<PackageVariantSpec["injectors"]>[number];

/** An in-package object annotated `kpt.dev/config-injection: required|optional`. */
export interface InjectionPoint {
  file: string;
  /** Position of the object's document in its file. */
  index: number;
  apiVersion: string;
  kind: string;
  name: string;
  required: boolean;
  /** `config.injection.<Kind>.<name>`: the Kptfile condition (and readiness gate) of this point. */
  conditionType: string;
}

/** An in-cluster object to GET: the point's group/version/kind, the injector's name. */
export interface InClusterRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export interface InjectionPlan {
  points: InjectionPoint[];
  /** Every object any point may need, each once, in the order first needed. */
  fetch: InClusterRef[];
}

export function injectionConditionType(kind: string, name: string): string {
  return ["config", "injection", kind, name].join(".");
}

export function inClusterKey(ref: InClusterRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf("/") + 1);
}

/** The parsed KRM files (sorted by path) and their injection points; throws MutationError. */
export function scanInjectionPoints(files: PackageFiles): {
  points: InjectionPoint[];
  parsed: Map<string, YamlFile>;
} {
  const points: InjectionPoint[] = [];
  const parsed = new Map<string, YamlFile>();
  const problems: string[] = [];
  for (const file of Object.keys(files).filter(isKrmPath).sort()) {
    let yaml: YamlFile;
    try {
      yaml = parseYamlFile(files[file]);
    } catch (error) {
      if (!(error instanceof YamlParseError)) throw error;
      throw new MutationError(`${file}: ${error.message}`);
    }
    parsed.set(file, yaml);
    yaml.docs.forEach((doc, index) => {
      const meta = krmMeta(doc);
      const value =
        meta &&
        plain(getPath(doc.contents, ["metadata", "annotations", CONFIG_INJECTION_ANNOTATION]));
      if (!meta || value === undefined) return;
      if (value !== "required" && value !== "optional") {
        problems.push(
          `${file}: ${meta.kind}/${meta.name} has invalid "${CONFIG_INJECTION_ANNOTATION}" annotation value of ${JSON.stringify(String(value))}`,
        );
      }
      const { apiVersion, kind, name } = meta;
      const conditionType = injectionConditionType(kind, name);
      points.push({
        file,
        index,
        apiVersion,
        kind,
        name,
        required: value === "required",
        conditionType,
      });
    });
  }
  problems.push(...duplicateProblems(points));
  if (problems.length > 0)
    throw new MutationError(`errors in injection points: ${problems.join(", ")}`);
  return { points, parsed };
}

function duplicateProblems(points: InjectionPoint[]): string[] {
  const seen = new Map<string, InjectionPoint>();
  const problems: string[] = [];
  for (const point of points) {
    const first = seen.get(point.conditionType);
    if (first) {
      problems.push(
        `duplicate injection conditionType "${point.conditionType}" (${first.file} and ${point.file})`,
      );
    } else seen.set(point.conditionType, point);
  }
  return problems;
}

/**
 * Whether an injector may serve a point: a present group must equal the point's ("" is the
 * core group, as in the CRD); a non-empty version or kind must equal the point's.
 */
export function injectorApplies(injector: Injector, point: InjectionPoint): boolean {
  if (injector.group !== undefined && injector.group !== apiGroup(point.apiVersion)) return false;
  if (injector.version && injector.version !== versionOf(point.apiVersion)) return false;
  if (injector.kind && injector.kind !== point.kind) return false;
  return !!injector.name;
}

/** The objects to try for a point, in injector order (the first one that exists wins). */
export function injectionCandidates(
  point: InjectionPoint,
  injectors: readonly Injector[],
  namespace: string,
): InClusterRef[] {
  return injectors
    .filter(injector => injectorApplies(injector, point))
    .map(injector => ({
      apiVersion: point.apiVersion,
      kind: point.kind,
      namespace,
      name: injector.name,
    }));
}

/**
 * Phase 1: the injection points of the package and the in-cluster objects to fetch, all in
 * the PackageVariant's namespace. Throws MutationError for an invalid annotation value or two
 * points with the same condition type (to be fixed in the upstream package).
 */
export function planInjection(
  files: PackageFiles,
  injectors: readonly Injector[] | undefined,
  namespace: string,
): InjectionPlan {
  const { points } = scanInjectionPoints(files);
  const fetch = new Map<string, InClusterRef>();
  for (const point of points) {
    for (const ref of injectionCandidates(point, injectors ?? [], namespace)) {
      if (!fetch.has(inClusterKey(ref))) fetch.set(inClusterKey(ref), ref);
    }
  }
  return { points, fetch: [...fetch.values()] };
}
