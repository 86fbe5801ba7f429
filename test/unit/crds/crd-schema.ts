// Helpers for the CRD tests: load crds/*.yaml and walk their OpenAPI schemas.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export interface Schema {
  description?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-validations"?: { rule: string; message?: string }[];
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: Schema };
  subresources?: { status?: object };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath: string }[];
}

export interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: {
      kind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: CrdVersion[];
  };
}

export const crdDir = join(__dirname, "..", "..", "..", "crds");

/** Every crds/*.yaml, parsed, in file-name order (the order crd-types/manifests.ts uses). */
export function loadCrds(): { file: string; crd: Crd }[] {
  return readdirSync(crdDir)
    .filter(file => file.endsWith(".yaml"))
    .sort()
    .map(file => ({ file, crd: parse(readFileSync(join(crdDir, file), "utf8")) as Crd }));
}

/** Paths of properties (at any depth, through arrays and maps) that lack a non-empty description. */
export function undescribedProperties(schema: Schema, path: string): string[] {
  const found: string[] = [];
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const childPath = `${path}.${name}`;
    if (!child.description?.trim()) found.push(childPath);
    found.push(...undescribedProperties(child, childPath));
  }
  if (schema.items) found.push(...undescribedProperties(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === "object") {
    found.push(...undescribedProperties(schema.additionalProperties, `${path}{}`));
  }
  return found;
}

/** The sub-schema at a dotted path such as "spec.upstream.revision"; "[]" steps into array items. */
export function schemaAt(schema: Schema, path: string): Schema | undefined {
  let current: Schema | undefined = schema;
  for (const step of path.split(".").filter(Boolean)) {
    if (!current) return undefined;
    if (step === "[]") current = current.items;
    else current = current.properties?.[step];
  }
  return current;
}

/** Paths in a sample object that the schema does not declare (the API server would prune them). */
export function undeclaredPaths(value: unknown, schema: Schema, path: string): string[] {
  if (Array.isArray(value)) {
    return schema.items
      ? value.flatMap((item, i) => undeclaredPaths(item, schema.items as Schema, `${path}[${i}]`))
      : [];
  }
  if (value === null || typeof value !== "object") return [];
  const found: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const declared = schema.properties?.[key];
    const mapValues =
      typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
    if (declared) found.push(...undeclaredPaths(child, declared, childPath));
    else if (mapValues) found.push(...undeclaredPaths(child, mapValues, childPath));
    else found.push(childPath);
  }
  return found;
}
