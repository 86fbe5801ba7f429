// The multiplying render of issue 26: a package of ~700 bytes whose apply-replacements copies a
// map into `n` of its own children. Each target gets a copy of the map as it has grown so far,
// so the resource doubles n times (in this thread, n=16 took 27 s and 244 MiB before the pool).

/** The Kptfile's `pipeline:` running apply-replacements as `image`. */
export const multiplyingPipeline = (image: string): string =>
  `pipeline:\n  mutators:\n    - image: ${image}\n      configPath: replacements.yaml\n`;

/** The package's files but its Kptfile. */
export function multiplyingFiles(n: number): Record<string, string> {
  const paths = Array.from({ length: n }, (_, i) => `spec.m.c${i}`).join(", ");
  return {
    "replacements.yaml": `apiVersion: fn.kpt.dev/v1alpha1
kind: ApplyReplacements
metadata:
  name: grow
  annotations:
    config.kubernetes.io/local-config: "true"
replacements:
  - source: {kind: Thing, name: seed, fieldPath: spec.m}
    targets:
      - select: {kind: Thing, name: seed}
        fieldPaths: [${paths}]
        options: {create: true}
`,
    "thing.yaml":
      "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: seed\nspec:\n  m:\n    k: v\n",
  };
}
