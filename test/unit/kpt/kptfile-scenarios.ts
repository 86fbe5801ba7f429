// Kptfile pipeline merge scenarios (kpt MergeKptfiles rules) as data, including a
// PackageVariant-prepended function. Used by the unit tests and for comparing with kpt.
import type { Edit } from "./fixtures";

const UNNAMED = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: base
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app: demo
`;

const NAMED = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: base
pipeline:
  mutators:
    - name: labels
      image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app: demo
`;

const PV_FUNCTION =
  "  mutators:\n    - name: PackageVariant.pv1.ns.0\n      image: gcr.io/kpt-fn/set-namespace:v0.4.1\n      configMap:\n        namespace: ns\n";
const PV_ENTRY = {
  name: "PackageVariant.pv1.ns.0",
  image: "gcr.io/kpt-fn/set-namespace:v0.4.1",
  configMap: { namespace: "ns" },
};

export interface KptfileRow {
  name: string;
  base: string;
  local: Edit[];
  upstream: Edit[];
  mutators: unknown;
  validators?: unknown;
  conflicts: string[];
}

export const kptfileRows: KptfileRow[] = [
  {
    name: "unnamed functions match by image without tag: tag bump upstream + local config edit",
    base: UNNAMED,
    local: [["Kptfile", "app: demo", "app: mine"]],
    upstream: [["Kptfile", "set-labels:v0.2.0", "set-labels:v0.3.0"]],
    mutators: [{ image: "gcr.io/kpt-fn/set-labels:v0.3.0", configMap: { app: "mine" } }],
    conflicts: [],
  },
  {
    name: "unnamed functions: upstream-added mutator appended, local validator kept",
    base: UNNAMED,
    local: [
      [
        "Kptfile",
        "pipeline:\n",
        "pipeline:\n  validators:\n    - image: gcr.io/kpt-fn/kubeconform:v0.1.1\n",
      ],
    ],
    upstream: [
      [
        "Kptfile",
        "        app: demo\n",
        "        app: demo\n    - image: gcr.io/kpt-fn/set-namespace:v0.4.1\n",
      ],
    ],
    mutators: [
      { image: "gcr.io/kpt-fn/set-labels:v0.2.0", configMap: { app: "demo" } },
      { image: "gcr.io/kpt-fn/set-namespace:v0.4.1" },
    ],
    validators: [{ image: "gcr.io/kpt-fn/kubeconform:v0.1.1" }],
    conflicts: [],
  },
  {
    name: "same function config changed on both sides: upstream wins, conflict on the function field",
    base: UNNAMED,
    local: [["Kptfile", "app: demo", "app: mine"]],
    upstream: [["Kptfile", "app: demo", "app: theirs"]],
    mutators: [{ image: "gcr.io/kpt-fn/set-labels:v0.2.0", configMap: { app: "theirs" } }],
    conflicts: ["BothModified pipeline.mutators[image=gcr.io/kpt-fn/set-labels].configMap.app"],
  },
  {
    name: "PackageVariant function prepended, unnamed upstream function unchanged: kept",
    base: UNNAMED,
    local: [["Kptfile", "  mutators:\n", PV_FUNCTION]],
    upstream: [["Kptfile", "name: base", "name: base\n  labels:\n    v: '2'"]],
    mutators: [PV_ENTRY, { image: "gcr.io/kpt-fn/set-labels:v0.2.0", configMap: { app: "demo" } }],
    conflicts: [],
  },
  {
    // Recorded kpt behaviour (field.md §5): a mixed named/unnamed list is not associative, so
    // upstream's changed list replaces the local one and the PackageVariant function is dropped.
    name: "PackageVariant function prepended, unnamed upstream function changed: list replaced, PV function dropped",
    base: UNNAMED,
    local: [["Kptfile", "  mutators:\n", PV_FUNCTION]],
    upstream: [["Kptfile", "set-labels:v0.2.0", "set-labels:v0.3.0"]],
    mutators: [{ image: "gcr.io/kpt-fn/set-labels:v0.3.0", configMap: { app: "demo" } }],
    conflicts: ["AtomicListReplaced pipeline.mutators"],
  },
  {
    name: "PackageVariant function prepended, named upstream function changed: merged by name, PV function kept first",
    base: NAMED,
    local: [["Kptfile", "  mutators:\n", PV_FUNCTION]],
    upstream: [["Kptfile", "set-labels:v0.2.0", "set-labels:v0.3.0"]],
    mutators: [
      PV_ENTRY,
      { name: "labels", image: "gcr.io/kpt-fn/set-labels:v0.3.0", configMap: { app: "demo" } },
    ],
    conflicts: [],
  },
  {
    name: "repeated unnamed images: no synthetic key, list is atomic",
    base: UNNAMED.replace(
      "        app: demo\n",
      "        app: demo\n    - image: gcr.io/kpt-fn/set-labels:v0.2.0\n      configMap:\n        env: dev\n",
    ),
    local: [["Kptfile", "env: dev", "env: prod"]],
    upstream: [["Kptfile", "app: demo", "app: demo2"]],
    mutators: [
      { image: "gcr.io/kpt-fn/set-labels:v0.2.0", configMap: { app: "demo2" } },
      { image: "gcr.io/kpt-fn/set-labels:v0.2.0", configMap: { env: "dev" } },
    ],
    conflicts: ["AtomicListReplaced pipeline.mutators"],
  },
];
