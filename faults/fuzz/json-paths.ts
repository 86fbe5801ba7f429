// Addressing nodes of a JSON object by path, for the mutations: every node under spec and
// metadata, which of them are strings, which hold CEL, and the path as Kubernetes writes it.
import type { Json, JsonObject } from "./seeds";

export type Path = (string | number)[];

const isObject = (v: Json | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Every node under `spec` and `metadata` (the roots included), depth first. */
export function nodePaths(obj: JsonObject): Path[] {
  const out: Path[] = [];
  const walk = (value: Json, path: Path) => {
    out.push(path);
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
    else if (isObject(value)) for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
  };
  for (const root of ["spec", "metadata"]) if (obj[root] !== undefined) walk(obj[root], [root]);
  return out;
}

export function getAt(obj: JsonObject, path: Path): Json | undefined {
  let node: Json | undefined = obj;
  for (const key of path) {
    if (Array.isArray(node) && typeof key === "number") node = node[key];
    else if (isObject(node) && typeof key === "string") node = node[key];
    else return undefined;
  }
  return node;
}

/** Sets the node at `path`, creating objects on the way; the root is never replaced. */
export function setAt(obj: JsonObject, path: Path, value: Json): void {
  let node: Json = obj;
  for (const [i, key] of path.entries()) {
    const last = i === path.length - 1;
    if (Array.isArray(node) && typeof key === "number") {
      if (last) node[key] = value;
      else node = node[key];
    } else if (isObject(node)) {
      if (last) node[String(key)] = value;
      else {
        if (!isObject(node[String(key)]) && !Array.isArray(node[String(key)]))
          node[String(key)] = {};
        node = node[String(key)];
      }
    } else return;
  }
}

/** Renames the last key of `path` (a map entry) to `name`, keeping its value. */
export function renameKey(obj: JsonObject, path: Path, name: string): boolean {
  const parent = getAt(obj, path.slice(0, -1));
  const key = path[path.length - 1];
  if (!isObject(parent) || typeof key !== "string") return false;
  const value = parent[key];
  delete parent[key];
  parent[name] = value;
  return true;
}

export const stringPaths = (obj: JsonObject): Path[] =>
  nodePaths(obj).filter(p => typeof getAt(obj, p) === "string");

/** Strings the webhook parses as CEL: `…Expr` fields and the items of `…Exprs` string lists. */
export const celPaths = (obj: JsonObject): Path[] =>
  stringPaths(obj).filter(p => {
    const last = p[p.length - 1];
    const parent = p[p.length - 2];
    return (
      (typeof last === "string" && last.endsWith("Expr")) ||
      (typeof last === "number" && typeof parent === "string" && parent.endsWith("Exprs"))
    );
  });

/** Keys of string maps (labels, annotations, configMap, data, resources): renameable. */
export const mapKeyPaths = (obj: JsonObject): Path[] =>
  stringPaths(obj).filter(p => {
    const parent = p[p.length - 2];
    return (
      typeof parent === "string" &&
      ["labels", "annotations", "configMap", "data", "resources", "matchLabels"].includes(parent)
    );
  });

/** "spec.targets[0].template.labelExprs[1].valueExpr", as Kubernetes names a field. */
export function fieldPath(path: Path): string {
  return path
    .map((k, i) =>
      typeof k === "number"
        ? `[${k}]`
        : /^[A-Za-z_][\w-]*$/.test(k)
          ? `${i === 0 ? "" : "."}${k}`
          : `[${JSON.stringify(k)}]`,
    )
    .join("");
}

/** A dotted path from seeds.ts ("spec.targets.0.template.deletionPolicy") as a Path. */
export const parseDotted = (dotted: string): Path =>
  dotted.split(".").map(k => (/^\d+$/.test(k) ? Number(k) : k));
