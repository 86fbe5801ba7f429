// spec.packageContext applied to the package context ConfigMap (docs/package-variants.md,
// “Package context”): set `data` entries, then delete `removeKeys`. Keys added earlier stay
// unless listed in removeKeys; the reserved keys kpt/Porch own are never touched.
import { isMap, YAMLMap, type Document } from "yaml";
import type { PackageVariantSpec } from "../../crd-types";
import { krmMeta, parseYamlFile, stringifyYamlFile, YamlParseError } from "../krm/documents";
import {
  deleteField,
  findPair,
  getField,
  isMissingOrNull,
  sameNode,
  setField,
  toNode,
} from "../krm/nodes";
import { PACKAGE_CONTEXT_FILE, PACKAGE_CONTEXT_NAME } from "../kpt/clone";
import type { PackageFiles } from "../kpt/types";
import { RESERVED_CONTEXT_KEYS } from "../validation/common";
import { MutationError } from "./errors";

type PackageContext = NonNullable<PackageVariantSpec["packageContext"]>;

const reserved: ReadonlySet<string> = new Set(RESERVED_CONTEXT_KEYS);

function missingMessage(what: string): string {
  return (
    `spec.packageContext needs the package context ConfigMap "${PACKAGE_CONTEXT_NAME}" in ` +
    `${PACKAGE_CONTEXT_FILE}, but ${what}. Porch creates it for packages in deployment ` +
    `repositories (Repository spec.deployment: true); add it to the upstream package, or ` +
    `remove spec.packageContext`
  );
}

function isContextConfigMap(doc: Document): boolean {
  const meta = krmMeta(doc);
  return (
    meta?.apiVersion === "v1" && meta.kind === "ConfigMap" && meta.name === PACKAGE_CONTEXT_NAME
  );
}

function contextData(doc: Document): YAMLMap {
  const root = doc.contents as YAMLMap;
  const data = getField(root, "data");
  if (isMap(data)) return data;
  if (!isMissingOrNull(data)) {
    throw new MutationError(
      `${PACKAGE_CONTEXT_FILE}: ConfigMap "${PACKAGE_CONTEXT_NAME}" has a data field that is not a map`,
    );
  }
  const created = new YAMLMap();
  setField(root, "data", created);
  return created;
}

/** Sets and removes keys in place; true when anything changed. */
function editData(data: YAMLMap, context: PackageContext): boolean {
  let changed = false;
  for (const key of Object.keys(context.data ?? {}).sort()) {
    if (reserved.has(key)) continue;
    const value = toNode(String(context.data?.[key]));
    const current = getField(data, key);
    if (current !== undefined && sameNode(current, value)) continue;
    setField(data, key, value);
    changed = true;
  }
  for (const key of context.removeKeys ?? []) {
    if (reserved.has(key) || !findPair(data, key)) continue;
    deleteField(data, key);
    changed = true;
  }
  return changed;
}

/**
 * Returns the package with spec.packageContext applied to package-context.yaml. Nothing to do
 * (no data, no removeKeys) leaves the package as is even without a package context, as in the
 * reference; otherwise a missing file or ConfigMap is a MutationError saying how to fix it.
 * A file that does not change keeps its exact text.
 */
export function applyPackageContext(
  files: PackageFiles,
  context: PackageContext | undefined,
): PackageFiles {
  if (!context || (Object.keys(context.data ?? {}).length === 0 && !context.removeKeys?.length)) {
    return files;
  }
  const text = files[PACKAGE_CONTEXT_FILE];
  if (text === undefined) {
    throw new MutationError(
      missingMessage(`the downstream package has no ${PACKAGE_CONTEXT_FILE}`),
    );
  }
  let parsed;
  try {
    parsed = parseYamlFile(text);
  } catch (error) {
    if (!(error instanceof YamlParseError)) throw error;
    throw new MutationError(`${PACKAGE_CONTEXT_FILE}: invalid YAML: ${error.message}`);
  }
  const doc = parsed.docs.find(isContextConfigMap);
  if (!doc) {
    throw new MutationError(missingMessage(`${PACKAGE_CONTEXT_FILE} does not contain it`));
  }
  if (!editData(contextData(doc), context)) return files;
  return { ...files, [PACKAGE_CONTEXT_FILE]: stringifyYamlFile(parsed) };
}
