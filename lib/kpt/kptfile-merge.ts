// 3-way merge of Kptfiles as kpt's kptfileutil does it: only labels, annotations, info,
// pipeline and inventory are merged; name, namespace, upstream, upstreamLock and status stay
// local (the caller then sets upstream/upstreamLock). Pipeline functions merge by `name`;
// when no function in any of the three Kptfiles has a name (and none repeats), they merge by
// image without tag (or exec) instead — kpt's synthetic `_kpt-merge_<image>` key.
import { isMap, isScalar, isSeq } from "yaml";
import { ensureMap, getField, getPath, setField, type YNode } from "../krm/nodes";
import { type ElementKey, fieldsKeyer, type ListKeyer, type ListKeyResolver } from "./merge-keys";
import { type FieldConflict, merge3, whereAt } from "./merge3";
import { KPTFILE_ORDER, type Kptfile, setSection } from "./kptfile";

const MERGED_SECTIONS: readonly (readonly string[])[] = [
  ["metadata", "labels"],
  ["metadata", "annotations"],
  ["info"],
  ["pipeline"],
  ["inventory"],
];
const FUNCTION_LISTS = ["mutators", "validators"];
const byName = fieldsKeyer(["name"]);

/** Merges `original` → `updated` changes into `local` (edited in place). */
export function mergeKptfile(
  local: Kptfile,
  original: Kptfile | undefined,
  updated: Kptfile | undefined,
  onConflict: (conflict: FieldConflict) => void,
): void {
  const options = { listKeys: kptfileListKeys([local, original, updated]), onConflict };
  for (const path of MERGED_SECTIONS) {
    const merged = merge3(
      getPath(local.root, path),
      original && getPath(original.root, path),
      updated && getPath(updated.root, path),
      options,
      whereAt(path),
    );
    if (path.length === 1) {
      setSection(local, path[0], merged);
    } else if (merged !== undefined) {
      setField(ensureMap(local.root, "metadata", KPTFILE_ORDER), path[1], merged, [
        "name",
        "namespace",
        "labels",
        "annotations",
      ]);
    } else {
      const metadata = getField(local.root, "metadata");
      if (isMap(metadata)) metadata.delete(path[1]);
    }
  }
}

/** kyaml infers `name`-keyed lists in the Kptfile; pipeline functions may use the image key. */
function kptfileListKeys(kptfiles: readonly (Kptfile | undefined)[]): ListKeyResolver {
  const functionKey = useImageKey(kptfiles) ? imageKeyer : byName;
  return path =>
    path.length === 2 && path[0] === "pipeline" && FUNCTION_LISTS.includes(path[1])
      ? functionKey
      : byName;
}

/** kpt's shouldAddFnKey: no function has a name and no image (without tag) / exec repeats in a list. */
function useImageKey(kptfiles: readonly (Kptfile | undefined)[]): boolean {
  for (const kptfile of kptfiles) {
    for (const list of FUNCTION_LISTS) {
      const seen = new Set<string>();
      for (const fn of functions(kptfile, list)) {
        if (stringField(fn, "name")) return false;
        const key = functionImageKey(fn);
        if (seen.has(key)) return false;
        seen.add(key);
      }
    }
  }
  return true;
}

function functions(kptfile: Kptfile | undefined, list: string): YNode[] {
  const node = kptfile && getPath(kptfile.root, ["pipeline", list]);
  return isSeq(node) ? node.items : [];
}

function stringField(node: YNode, field: string): string {
  const value = getField(node, field);
  return isScalar(value) && value.value !== null ? String(value.value) : "";
}

/** exec, else the image up to the first ":" (kpt splits on ":", so a registry port truncates too). */
function functionImageKey(fn: YNode): string {
  return stringField(fn, "exec") || stringField(fn, "image").split(":")[0];
}

const imageKeyer: ListKeyer = (item): ElementKey | undefined => {
  if (!isMap(item)) return undefined;
  const exec = stringField(item, "exec");
  const key = functionImageKey(item);
  return {
    id: key,
    label: exec ? `exec=${exec}` : `image=${key}`,
    fields: [exec ? "exec" : "image"],
  };
};
