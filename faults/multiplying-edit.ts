// The multiplying edit of the noisy-neighbour scenario: a ~1 KB package whose Kptfile pipeline
// runs the default built-in apply-replacements to copy a ConfigMap's `data` map into new
// children of that same map. Each target slot receives a clone of the live map as it is by then,
// so the map doubles at every slot: `targets` slots make 2^targets copies of the seed value.
import type { PackageFiles } from "../lib/fn/types";

const SEED_VALUE = "x".repeat(64);

/** The files of package `name` whose render doubles its ConfigMap `targets` times. */
export function multiplyingPackage(name: string, targets: number): PackageFiles {
  const slots = Array.from({ length: targets }, (_, i) => `    - data.c${i}`).join("\n");
  return {
    Kptfile: `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: ${name}
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/apply-replacements:v0.1.1
      configPath: replacements.yaml
`,
    "replacements.yaml": `apiVersion: fn.kpt.dev/v1alpha1
kind: ApplyReplacements
metadata:
  name: multiply
  annotations:
    config.kubernetes.io/local-config: "true"
replacements:
- source:
    kind: ConfigMap
    name: seed
    fieldPath: data
  targets:
  - select:
      kind: ConfigMap
      name: seed
    fieldPaths:
${slots}
    options:
      create: true
`,
    "seed.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: seed
data:
  a: ${SEED_VALUE}
`,
  };
}

/** How many times the seed value appears in a rendered seed.yaml. */
export const seedCopies = (rendered: string) => rendered.split(SEED_VALUE).length - 1;
