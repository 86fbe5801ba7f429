import { plain, sameValue } from "../krm/nodes";
import {
  KPTFILE,
  KptfileError,
  parseKptfile,
  stringifyKptfile,
  type Kptfile,
} from "../kpt/kptfile";
import type { PackageFiles } from "../kpt/types";
import { MutationError } from "./errors";

/**
 * Edits the downstream package's Kptfile in place (comments and order kept). Returns the files
 * unchanged, same object, when the edit changed nothing as data; a missing or unreadable
 * Kptfile is a MutationError.
 */
export function editKptfile(files: PackageFiles, edit: (kptfile: Kptfile) => void): PackageFiles {
  const text = files[KPTFILE];
  if (text === undefined)
    throw new MutationError(`"${KPTFILE}" not found in the downstream package`);
  let kptfile: Kptfile;
  try {
    kptfile = parseKptfile(text);
  } catch (error) {
    if (error instanceof KptfileError) throw new MutationError(error.message);
    throw error;
  }
  const before = plain(kptfile.root);
  edit(kptfile);
  if (sameValue(before, plain(kptfile.root))) return files;
  return { ...files, [KPTFILE]: stringifyKptfile(kptfile) };
}
