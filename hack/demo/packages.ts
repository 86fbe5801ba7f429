// The blueprint packages the local git server serves in `npm start` (hack/demo/repositories.ts
// publishes them). Each revision is a complete file map (path → content) that is already
// rendered: running its Kptfile pipeline with our built-in functions changes nothing, so what a
// user reads in git is what a clone renders to (test/unit/demo/packages.test.ts checks it).
import { APP_V1 } from "./app";

export type DemoLifecycle = "Draft" | "Published";

export interface DemoRevision {
  /** Workspace of the draft the revision was made in (Porch names published revisions' PackageRevisions by it). */
  workspaceName: string;
  /** Published revisions get tag `<package>/v<N>` in the order they are listed. */
  lifecycle: DemoLifecycle;
  commitMessage: string;
  files: Readonly<Record<string, string>>;
}

export interface DemoPackage {
  /** Package path relative to the repository root, e.g. "nested/monitoring". */
  name: string;
  revisions: readonly DemoRevision[];
}

// kpt functions carry a `name`: when every function in a pipeline is named, kpt's 3-way Kptfile
// merge matches them by name, so functions a PackageVariant prepends survive an upgrade.
const baseNsKptfile = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: base-ns
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: A namespace with a resource quota; one instance per team or tenant.
pipeline:
  mutators:
    # The namespace is the package name: in a deployment repository the package context
    # (package-context.yaml) is regenerated with the downstream package's name.
    - name: set-namespace
      image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configPath: package-context.yaml
`;

// What `kpt pkg init` writes; a clone into a deployment repository regenerates it.
const basePackageContext = `apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/local-config: "true"
data:
  name: example
`;

const baseNamespace = `apiVersion: v1
kind: Namespace
metadata:
  name: example
`;

function baseQuota(limits: { cpu: string; memory: string; pods?: string }): string {
  const pods = limits.pods === undefined ? "" : `    pods: "${limits.pods}"\n`;
  return `apiVersion: v1
kind: ResourceQuota
metadata:
  name: default
  namespace: example
spec:
  hard:
    requests.cpu: "${limits.cpu}"
    requests.memory: ${limits.memory}
${pods}`;
}

const baseNs = (quota: string): Record<string, string> => ({
  Kptfile: baseNsKptfile,
  "package-context.yaml": basePackageContext,
  "namespace.yaml": baseNamespace,
  "resourcequota.yaml": quota,
});

const monitoringKptfile = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: monitoring
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: Prometheus scrape configuration for the app package; lives under a subdirectory (package name nested/monitoring).
pipeline:
  mutators:
    - name: set-namespace
      image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: monitoring
    - name: set-labels
      image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app.kubernetes.io/part-of: monitoring
`;

const monitoringConfig = `apiVersion: v1
kind: ConfigMap
metadata:
  name: prometheus-config
  namespace: monitoring
  labels:
    app.kubernetes.io/part-of: monitoring
data:
  prometheus.yml: |
    scrape_configs:
      - job_name: app
        kubernetes_sd_configs:
          - role: endpoints
        relabel_configs:
          # keep only Services of the app package
          - source_labels: [__meta_kubernetes_service_label_app_kubernetes_io_name]
            regex: app
            action: keep
`;

const experimentalKptfile = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: experimental
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: Work in progress (a Draft, never published); feature flags for a canary rollout.
`;

const featureFlags = `apiVersion: v1
kind: ConfigMap
metadata:
  name: feature-flags
data:
  canary: "true"
  canary-weight: "10"
`;

export const DEMO_BLUEPRINTS: readonly DemoPackage[] = [
  {
    name: "base-ns",
    revisions: [
      {
        workspaceName: "v1",
        lifecycle: "Published",
        commitMessage: "base-ns: namespace with a small default quota",
        files: baseNs(baseQuota({ cpu: "2", memory: "4Gi" })),
      },
      {
        workspaceName: "v2",
        lifecycle: "Published",
        commitMessage: "base-ns: double the quota and cap the number of pods",
        files: baseNs(baseQuota({ cpu: "4", memory: "8Gi", pods: "50" })),
      },
    ],
  },
  {
    name: "app",
    revisions: [
      {
        workspaceName: "v1",
        lifecycle: "Published",
        commitMessage: "app: web app reading its endpoints from an injectable ConfigMap",
        files: APP_V1,
      },
    ],
  },
  {
    name: "nested/monitoring",
    revisions: [
      {
        workspaceName: "v1",
        lifecycle: "Published",
        commitMessage: "nested/monitoring: scrape the app",
        files: { Kptfile: monitoringKptfile, "prometheus-config.yaml": monitoringConfig },
      },
    ],
  },
  {
    name: "experimental",
    revisions: [
      {
        workspaceName: "v1",
        lifecycle: "Draft",
        commitMessage: "experimental: first draft",
        files: { Kptfile: experimentalKptfile, "feature-flags.yaml": featureFlags },
      },
    ],
  },
];
