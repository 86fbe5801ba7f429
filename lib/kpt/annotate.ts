// Adds kpt's merge markers to every KRM object of a package, as Porch's clone and upgrade do
// (ensureMergeKey over all *.yaml, *.yml and Kptfile files). Files that are not valid KRM are
// left alone (kpt treats this step as best effort); unchanged files keep their exact text.
import { isKrmPath, parseKrmFile, stringifyYamlFile } from "../krm/documents";
import { addMergeMarkers } from "./resource-id";
import type { PackageFiles } from "./types";

export function addMergeMarkersToPackage(files: PackageFiles): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, content] of Object.entries(files)) {
    out[path] = isKrmPath(path) ? markFile(content) : content;
  }
  return out;
}

function markFile(content: string): string {
  const file = parseKrmFile(content, { keepCommentDocs: true });
  if (!file) return content;
  let changed = false;
  for (const doc of file.docs) changed = addMergeMarkers(doc) || changed;
  return changed ? stringifyYamlFile(file) : content;
}
