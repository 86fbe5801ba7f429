import { PackageRevision } from "../../crd-types";
import type { PackageRevisionKey } from "../../lib/git";

/** The content store's address of a PackageRevision: package path and workspace. */
export function gitKey(pr: PackageRevision): PackageRevisionKey {
  return { packageName: pr.spec?.packageName ?? "", workspaceName: pr.spec?.workspaceName ?? "" };
}
