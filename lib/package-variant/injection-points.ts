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
import { createHash } from "node:crypto";
import { ByteLru } from "../byte-lru";
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

/** One file's injection points and the problems of their annotations, or why it does not parse. */
type FileScan = { points: InjectionPoint[]; problems: string[] } | { error: string };

/**
 * Scans by file path and text, process-wide and bounded: a variant's files are scanned at every
 * reconcile of it and of its drafts (planning what to fetch, checking its mutations,
 * injecting), the same texts again and again; the scan parses every KRM file, and was three
 * parses in five of a variant's fan-out. Keyed by the text's SHA-256 (not the text, which would
 * be kept alive), counted by what a scan holds; frozen, so a caller cannot change what another
 * tenant's reconcile is given.
 */
const scans = new ByteLru<FileScan>(4 * 1024 * 1024);

/** What one kept scan takes: its key, each point's fields, each problem's text. */
function scanBytes(key: string, scan: FileScan): number {
  if ("error" in scan) return 2 * (key.length + scan.error.length) + 64;
  let bytes = 2 * key.length + 64;
  for (const point of scan.points)
    bytes +=
      160 +
      2 * (point.file.length + point.apiVersion.length + point.kind.length) +
      4 * point.name.length;
  for (const problem of scan.problems) bytes += 2 * problem.length + 32;
  return bytes;
}

function scanFile(file: string, text: string): FileScan {
  const key = `${file}\0${createHash("sha256").update(text).digest("base64")}`;
  const known = scans.get(key);
  if (known !== undefined) return known;
  const scan = deepFreeze(parseAndScan(file, text));
  scans.set(key, scan, scanBytes(key, scan));
  return scan;
}

function deepFreeze(scan: FileScan): FileScan {
  if (!("error" in scan)) {
    for (const point of scan.points) Object.freeze(point);
    Object.freeze(scan.points);
    Object.freeze(scan.problems);
  }
  return Object.freeze(scan);
}

function parseAndScan(file: string, text: string): FileScan {
  let yaml: YamlFile;
  try {
    yaml = parseYamlFile(text);
  } catch (error) {
    if (!(error instanceof YamlParseError)) throw error;
    return { error: `${file}: ${error.message}` };
  }
  const points: InjectionPoint[] = [];
  const problems: string[] = [];
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
      return;
    }
    const { apiVersion, kind, name } = meta;
    points.push({
      file,
      index,
      apiVersion,
      kind,
      name,
      required: value === "required",
      conditionType: injectionConditionType(kind, name),
    });
  });
  return { points, problems };
}

/** The package's injection points, its KRM files in path order; throws MutationError. */
export function injectionPoints(files: PackageFiles): InjectionPoint[] {
  const points: InjectionPoint[] = [];
  const problems: string[] = [];
  for (const file of Object.keys(files).filter(isKrmPath).sort()) {
    const scan = scanFile(file, files[file]);
    if ("error" in scan) throw new MutationError(scan.error);
    // One by one: a spread of a file's points is one argument each, and a tenant's file may
    // hold more documents than a call takes arguments.
    for (const point of scan.points) points.push(point);
    for (const problem of scan.problems) problems.push(problem);
  }
  for (const problem of duplicateProblems(points)) problems.push(problem);
  if (problems.length > 0)
    throw new MutationError(`errors in injection points: ${problems.join(", ")}`);
  return points;
}

/**
 * The injection points and, parsed afresh for the caller to edit, the files that hold one;
 * throws MutationError.
 */
export function scanInjectionPoints(files: PackageFiles): {
  points: InjectionPoint[];
  parsed: Map<string, YamlFile>;
} {
  const points = injectionPoints(files);
  const parsed = new Map<string, YamlFile>();
  for (const { file } of points)
    if (!parsed.has(file)) parsed.set(file, parseYamlFile(files[file]));
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
  const points = injectionPoints(files);
  const fetch = new Map<string, InClusterRef>();
  for (const point of points) {
    for (const ref of injectionCandidates(point, injectors ?? [], namespace)) {
      if (!fetch.has(inClusterKey(ref))) fetch.set(inClusterKey(ref), ref);
    }
  }
  return { points, fetch: [...fetch.values()] };
}
