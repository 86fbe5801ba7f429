// kustomize FieldSpecs (`{group, version, kind, path, create}`): a "/"-separated path
// ("\/" escapes a slash inside a key) that walks through every element of any list on the
// way, limited to resources of a given group/version/kind.
import type { Document } from "yaml";
import { isMap, isScalar, isSeq, YAMLMap } from "yaml";
import { apiGroup, krmMeta } from "../../krm/documents";

export interface FieldSpec {
  group?: string;
  version?: string;
  kind?: string;
  path: string;
  create?: boolean;
}

/** A final field reached by a field spec: the map holding it, its key, and its dotted path. */
export interface FieldSite {
  parent: YAMLMap;
  key: string;
  node: unknown;
  fieldPath: string[];
}

/** kustomize Gvk.IsSelected: empty selector fields match anything. */
export function selectsResource(
  spec: Pick<FieldSpec, "group" | "version" | "kind">,
  doc: Document,
): boolean {
  const meta = krmMeta(doc);
  if (!meta) return false;
  const slash = meta.apiVersion.indexOf("/");
  const version = slash < 0 ? meta.apiVersion : meta.apiVersion.slice(slash + 1);
  if (spec.group && spec.group !== apiGroup(meta.apiVersion)) return false;
  if (spec.version && spec.version !== version) return false;
  return !spec.kind || spec.kind === meta.kind;
}

export function splitFieldSpecPath(path: string): string[] {
  const segments: string[] = [];
  let current = "";
  for (let i = 0; i < path.length; i++) {
    if (path[i] === "\\" && path[i + 1] === "/") {
      current += "/";
      i++;
    } else if (path[i] === "/") {
      segments.push(current);
      current = "";
    } else {
      current += path[i];
    }
  }
  segments.push(current);
  return segments.filter(segment => segment !== "");
}

/**
 * Calls `visit` for every field the spec reaches in `doc`. With `create`, missing maps on
 * the way are created; the final field itself is left to the visitor.
 */
export function visitFieldSpec(
  doc: Document,
  spec: FieldSpec,
  visit: (site: FieldSite) => void,
): void {
  if (!selectsResource(spec, doc) || !isMap(doc.contents)) return;
  walk(doc.contents, splitFieldSpecPath(spec.path), [], spec.create === true, visit);
}

function walk(
  map: YAMLMap,
  segments: string[],
  fieldPath: string[],
  create: boolean,
  visit: (site: FieldSite) => void,
): void {
  const [key, ...rest] = segments;
  if (key === undefined) return;
  const node = map.get(key, true);
  if (rest.length === 0) {
    visit({ parent: map, key, node, fieldPath: [...fieldPath, key] });
    return;
  }
  if (isSeq(node)) {
    for (const element of node.items) {
      if (isMap(element)) walk(element, rest, [...fieldPath, key], create, visit);
    }
  } else if (isMap(node)) {
    walk(node, rest, [...fieldPath, key], create, visit);
  } else if (create && (node === undefined || (isScalar(node) && node.value === null))) {
    const created = new YAMLMap();
    map.set(key, created);
    walk(created, rest, [...fieldPath, key], create, visit);
  }
}

/** Parses `fieldSpecs`-style lists from a custom-resource config. */
/**
 * A builtin's `additional…Fields` (named by `field`), or the deprecated `fieldSpecs` it
 * replaced; giving both is an error, as in the kpt functions.
 */
export function additionalFieldSpecs(config: Record<string, unknown>, field: string): FieldSpec[] {
  const legacy = parseFieldSpecs(config.fieldSpecs, "fieldSpecs");
  const extra = parseFieldSpecs(config[field], field);
  if (extra.length > 0 && legacy.length > 0) {
    throw new Error(`\`fieldSpecs\` has been deprecated, please rename it to \`${field}\``);
  }
  return extra.length > 0 ? extra : legacy;
}

export function parseFieldSpecs(value: unknown, field: string): FieldSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${field} must be a list of field specs`);
  return value.map((entry, i) => {
    if (
      typeof entry !== "object" ||
      entry === null ||
      typeof (entry as FieldSpec).path !== "string"
    ) {
      throw new Error(`${field}[${i}] must have a string \`path\``);
    }
    const spec = entry as Record<string, unknown>;
    return {
      group: typeof spec.group === "string" ? spec.group : undefined,
      version: typeof spec.version === "string" ? spec.version : undefined,
      kind: typeof spec.kind === "string" ? spec.kind : undefined,
      path: spec.path as string,
      create: spec.create === true,
    };
  });
}
