// The functionConfig a pipeline function receives: a ConfigMap built from `configMap`, the
// resource at `configPath`, or nothing.
import { Document } from "yaml";
import { parseYamlDocument } from "../krm/yaml-parse";
import { krmMeta, parseKrmFile } from "../krm/documents";
import { joinPath, type RenderItem } from "./package-tree";
import type { PackageFiles, PipelineFunction } from "./types";

export class FunctionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FunctionConfigError";
  }
}

/**
 * Resolves the functionConfig of `fn` declared in package `pkgDir`. Since kpt 1.0.0-beta.15
 * the configPath resource is itself part of the pipeline input and may have been mutated by
 * earlier functions, so the current resource is preferred over the file as originally read.
 */
export function resolveFunctionConfig(
  fn: PipelineFunction,
  pkgDir: string,
  current: readonly RenderItem[],
  files: PackageFiles,
): Document | undefined {
  if (fn.configPath) return configFromPath(fn.configPath, pkgDir, current, files);
  if (fn.configMap && Object.keys(fn.configMap).length > 0) return configMapDocument(fn.configMap);
  return undefined;
}

/** The ConfigMap kpt synthesises from `configMap:` (named function-input, values as strings). */
export function configMapDocument(data: Record<string, string>): Document {
  const doc = new Document({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "function-input" },
    data: { ...data },
  });
  return doc;
}

function configFromPath(
  configPath: string,
  pkgDir: string,
  current: readonly RenderItem[],
  files: PackageFiles,
): Document {
  const path = joinPath(pkgDir, normalize(configPath));
  const live = current.filter(item => item.path === path);
  if (live.length === 1) return live[0].doc.clone();
  if (live.length > 1) throw tooMany(configPath, live.length);
  const text = files[path];
  if (text === undefined) {
    throw new FunctionConfigError(`missing function config ${JSON.stringify(configPath)}`);
  }
  const parsed = parseKrmFile(text);
  if (!parsed) {
    const doc = parseYamlDocument(text);
    const reason = doc.errors[0]?.message ?? "resource must have `apiVersion`, `kind`, and `name`";
    throw new FunctionConfigError(`functionConfig ${JSON.stringify(configPath)}: ${reason}`);
  }
  if (parsed.docs.length !== 1) throw tooMany(configPath, parsed.docs.length);
  if (!krmMeta(parsed.docs[0])) {
    throw new FunctionConfigError(
      `functionConfig ${JSON.stringify(configPath)} is not a KRM resource`,
    );
  }
  return parsed.docs[0];
}

function tooMany(configPath: string, count: number): FunctionConfigError {
  return new FunctionConfigError(
    `functionConfig ${JSON.stringify(configPath)} must not contain more than one config, got ${count}`,
  );
}

function normalize(path: string): string {
  return path
    .split("/")
    .filter(segment => segment !== "" && segment !== ".")
    .join("/");
}
