// The label that lists a revision among a PackageVariant's revisions (found by it without a
// LIST of the namespace). Label values hold at most 63 characters and a name up to 253, so a
// longer name is shortened with a hash, as Kubernetes controllers do, and kept whole in an
// annotation. Ownership itself is decided by the owner reference (UID), never by the label.
import { createHash } from "node:crypto";

export const PACKAGE_VARIANT_LABEL = "config.porch.kpt.dev/packagevariant";
export const PACKAGE_VARIANT_NAME_ANNOTATION = "config.porch.kpt.dev/packagevariant-name";
const MAX_LABEL_VALUE = 63;

/** The name itself when it fits (so revisions labelled before still match), else prefix-hash. */
export function variantLabelValue(name: string): string {
  if (name.length <= MAX_LABEL_VALUE) return name;
  const hash = createHash("sha1").update(name).digest("hex").slice(0, 8);
  return `${name.slice(0, 54).replace(/[^A-Za-z0-9]+$/, "")}-${hash}`;
}

/** Label (and, for a shortened one, the annotation with the full name) for a revision. */
export function variantMarks(name: string): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  const value = variantLabelValue(name);
  return {
    labels: { [PACKAGE_VARIANT_LABEL]: value },
    annotations: value === name ? {} : { [PACKAGE_VARIANT_NAME_ANNOTATION]: name },
  };
}
