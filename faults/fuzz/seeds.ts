// Valid objects of each kind the webhook validates, the starting points of every mutation.
// They follow examples/ and the e2e and benchmark admission tests; each is admitted as is
// (the scenario checks that before fuzzing). No namespace: the request path gives it.

export type FuzzKind =
  | "PackageVariant"
  | "PackageVariantSet"
  | "PackageRevision"
  | "PackageRevisionResources";

export const FUZZ_KINDS: readonly FuzzKind[] = [
  "PackageVariant",
  "PackageVariantSet",
  "PackageRevision",
  "PackageRevisionResources",
];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const PV = { apiVersion: "config.porch.kpt.dev/v1alpha1", kind: "PackageVariant" };
const PVS = { apiVersion: "config.porch.kpt.dev/v1alpha2", kind: "PackageVariantSet" };
const PR = { apiVersion: "porch.kpt.dev/v1alpha2", kind: "PackageRevision" };
const PRR = { apiVersion: "porch.kpt.dev/v1alpha2", kind: "PackageRevisionResources" };

const expr = (key: string, valueExpr: string) => ({ key, valueExpr });

const KPTFILE = [
  "apiVersion: kpt.dev/v1",
  "kind: Kptfile",
  "metadata:",
  "  name: web",
  "pipeline:",
  "  mutators:",
  "    - image: set-namespace",
  "      configMap:",
  "        namespace: web",
  "",
].join("\n");

export const SEEDS: Record<FuzzKind, JsonObject[]> = {
  PackageVariant: [
    {
      ...PV,
      metadata: { name: "my-pv", labels: { team: "web" } },
      spec: {
        upstream: { repo: "blueprints", package: "base-ns", revision: 1 },
        downstream: { repo: "deployments", package: "my-ns" },
        adoptionPolicy: "adoptNone",
        deletionPolicy: "delete",
        labels: { region: "useast1" },
        annotations: { "example.com/owner": "web" },
        packageContext: { data: { region: "us-east1" }, removeKeys: ["zone"] },
        pipeline: {
          mutators: [
            { image: "set-namespace", configMap: { namespace: "my-ns" }, name: "my-func" },
            { image: "set-labels", configMap: { app: "foo" } },
          ],
          validators: [{ image: "kubeval" }],
        },
        injectors: [{ kind: "ConfigMap", name: "useast1-endpoints" }],
      },
    },
    {
      ...PV,
      metadata: { name: "follow-latest" },
      spec: {
        upstream: { repo: "blueprints", package: "app", revision: "latest" },
        downstream: { repo: "deployments", package: "apps/app-useast1" },
        adoptionPolicy: "adoptExisting",
        deletionPolicy: "orphan",
      },
    },
  ],
  PackageVariantSet: [
    {
      ...PVS,
      metadata: { name: "ten-expressions" },
      spec: {
        upstream: { repo: "blueprints", package: "base-ns", revision: 1 },
        targets: [
          {
            repositorySelector: { matchLabels: { env: "prod" } },
            template: {
              downstream: { packageExpr: "packageDefault + '-' + repository.labels['shard']" },
              adoptionPolicy: "adoptExisting",
              deletionPolicy: "orphan",
              labelExprs: [
                expr("shard", "repository.labels['shard']"),
                expr("tier", "repository.labels['shard'] == '0' ? 'canary' : 'fleet'"),
              ],
              annotationExprs: [
                expr("bench/upper", "repository.name.upperAscii()"),
                expr("bench/match", "repository.name.matches('^deploy-[0-9]+$') ? 'y' : 'n'"),
              ],
              packageContext: {
                dataExprs: [expr("region", "repository.labels['shard'] + '-region'")],
                removeKeyExprs: ["'zone'"],
              },
              injectors: [{ nameExpr: "repository.name + '-endpoints'" }],
              pipeline: {
                mutators: [
                  {
                    image: "set-namespace",
                    configMapExprs: [{ key: "namespace", valueExpr: "'ns-' + repository.name" }],
                  },
                ],
              },
            },
          },
        ],
      },
    },
    {
      ...PVS,
      metadata: { name: "edge-clusters" },
      spec: {
        upstream: { repo: "blueprints", package: "base-ns", revision: "latest" },
        targets: [
          {
            objectSelector: {
              apiVersion: "v1",
              kind: "ConfigMap",
              matchLabels: { "porch.kpt.dev/cluster": "edge" },
            },
            template: {
              downstream: { repoExpr: "target.labels['repo']", packageExpr: "'ns-' + target.name" },
              packageContext: { dataExprs: [{ key: "cluster", valueExpr: "target.name" }] },
            },
          },
          {
            repositories: [{ name: "cluster-01", packageNames: ["foo-a", "foo-b"] }],
            template: { labelExprs: [{ keyExpr: "'pkg'", valueExpr: "target.package" }] },
          },
        ],
      },
    },
  ],
  PackageRevision: [
    {
      ...PR,
      metadata: { name: "blueprints.web.v1" },
      spec: {
        packageName: "web",
        repository: "blueprints",
        workspaceName: "v1",
        lifecycle: "Draft",
        source: {
          init: { description: "a web app", keywords: ["web"], site: "https://example.com" },
        },
      },
    },
    {
      ...PR,
      metadata: { name: "deployments.web.v2" },
      spec: {
        packageName: "web",
        repository: "deployments",
        workspaceName: "v2",
        lifecycle: "Proposed",
        source: {
          cloneFrom: {
            type: "git",
            git: { repo: "https://example.com/blueprints.git", ref: "main", directory: "web" },
          },
        },
      },
    },
    {
      ...PR,
      metadata: { name: "deployments.web.v3" },
      spec: {
        packageName: "web",
        repository: "deployments",
        workspaceName: "v3",
        source: {
          upgrade: {
            oldUpstream: { name: "blueprints.web.v1" },
            newUpstream: { name: "blueprints.web.v2" },
            currentPackage: { name: "deployments.web.v1" },
            strategy: "resource-merge",
          },
        },
      },
    },
  ],
  PackageRevisionResources: [
    {
      ...PRR,
      metadata: { name: "blueprints.web.v1" },
      spec: {
        packageName: "web",
        repository: "blueprints",
        workspaceName: "v1",
        resources: {
          Kptfile: KPTFILE,
          "deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n",
          "config/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n",
        },
      },
    },
  ],
};

/** Enum-like fields of each kind, by dotted path, with a value of each that is valid. */
export const ENUM_FIELDS: Record<FuzzKind, string[]> = {
  PackageVariant: ["spec.adoptionPolicy", "spec.deletionPolicy", "spec.upstream.revision"],
  PackageVariantSet: [
    "spec.upstream.revision",
    "spec.targets.0.template.adoptionPolicy",
    "spec.targets.0.template.deletionPolicy",
  ],
  PackageRevision: ["spec.lifecycle", "spec.source.cloneFrom.type", "spec.source.upgrade.strategy"],
  PackageRevisionResources: [],
};
