// `kpt pkg get` / Porch's clone task on in-memory packages: the Kptfile gets the new package
// name plus upstream/upstreamLock, deployable packages get a generated package context, and
// every KRM object gets kpt's merge markers (Porch adds them to the Kptfile too).
import { Document, Scalar } from "yaml";
import { isKrmPath, krmMeta, krmObjects, parseKrmFile, stringifyYamlFile } from "../krm/documents";
import { getPath } from "../krm/nodes";
import { addMergeMarkersToPackage } from "./annotate";
import { clearMergeComment } from "./resource-id";
import {
  KPTFILE,
  newKptfile,
  parseKptfile,
  setKptfileName,
  setUpstream,
  stringifyKptfile,
} from "./kptfile";
import type { GitLock, PackageFiles } from "./types";

export const PACKAGE_CONTEXT_FILE = "package-context.yaml";
export const PACKAGE_CONTEXT_NAME = "kptfile.kpt.dev";
const LOCAL_CONFIG = "config.kubernetes.io/local-config";

export interface CloneOptions {
  /** Generate the package context as `kpt pkg get --for-deployment` / Porch for deployment repositories do. */
  forDeployment?: boolean;
  /** `data.package-path` of the package context (Porch: the package name, prefixed by its parent's path). */
  packagePath?: string;
}

/** Returns the files of a new package `packageName` cloned from `upstream` at `lock`. */
export function clonePackage(
  upstream: PackageFiles,
  lock: GitLock,
  packageName: string,
  options: CloneOptions = {},
): Record<string, string> {
  const kptfile =
    upstream[KPTFILE] === undefined ? newKptfile(packageName) : parseKptfile(upstream[KPTFILE]);
  // Porch rewrites the root Kptfile, so its merge marker names the new package.
  clearMergeComment(kptfile.doc);
  setKptfileName(kptfile, packageName);
  setUpstream(kptfile, lock, "resource-merge");
  let files: Record<string, string> = { ...upstream, [KPTFILE]: stringifyKptfile(kptfile) };
  if (options.forDeployment)
    files = generatePackageContext(files, { name: packageName, packagePath: options.packagePath });
  return addMergeMarkersToPackage(files);
}

export interface PackageContext {
  name: string;
  packagePath?: string;
}

/**
 * kpt's builtin gen-pkg-context: drops every existing `kptfile.kpt.dev` ConfigMap (in any
 * subpackage) and writes a fresh one holding only `name` (and `package-path`) to the root's
 * package-context.yaml — upstream context keys are not kept, as in kpt.
 */
export function generatePackageContext(
  files: PackageFiles,
  context: PackageContext,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, content] of Object.entries(files)) {
    const kept = isKrmPath(path) ? withoutPackageContext(content) : content;
    if (kept !== undefined) out[path] = kept;
  }
  const existing = out[PACKAGE_CONTEXT_FILE];
  const contextText = stringifyYamlFile({
    docs: [packageContextDocument(context)],
    compactSeq: false,
  });
  out[PACKAGE_CONTEXT_FILE] =
    existing === undefined ? contextText : `${existing.replace(/\n*$/, "\n")}---\n${contextText}`;
  return out;
}

function isPackageContext(doc: Document): boolean {
  const meta = krmMeta(doc);
  return (
    meta?.apiVersion === "v1" && meta.kind === "ConfigMap" && meta.name === PACKAGE_CONTEXT_NAME
  );
}

/** The file without package-context objects; undefined if nothing else was in it. */
function withoutPackageContext(content: string): string | undefined {
  const file = parseKrmFile(content, { keepCommentDocs: true });
  if (!file || !file.docs.some(isPackageContext)) return content;
  file.docs = file.docs.filter(doc => !isPackageContext(doc));
  return krmObjects(file).length > 0 ? stringifyYamlFile(file) : undefined;
}

function packageContextDocument(context: PackageContext): Document {
  const data: Record<string, string> = { name: context.name };
  if (context.packagePath) data["package-path"] = context.packagePath;
  const doc = new Document({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: PACKAGE_CONTEXT_NAME, annotations: { [LOCAL_CONFIG]: "true" } },
    data,
  });
  const flag = getPath(doc.contents, ["metadata", "annotations", LOCAL_CONFIG]);
  if (flag instanceof Scalar) flag.type = Scalar.QUOTE_DOUBLE;
  return doc;
}
