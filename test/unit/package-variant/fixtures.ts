// Builders for PackageVariants, PackageRevisions and packages in the PackageVariant tests.
import type { PackageRevision, PackageVariant, PackageVariantSpec } from "../../../crd-types";

export const NAMESPACE = "default";
export const PV_UID = "pv-uid";

export function variant(spec: PackageVariantSpec = {}, name = "my-pv"): PackageVariant {
  return {
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "PackageVariant",
    metadata: { name, namespace: NAMESPACE, uid: PV_UID },
    spec: {
      upstream: { repo: "blueprints", package: "nginx", revision: 2 },
      downstream: { repo: "edge01", package: "nginx" },
      ...spec,
    },
  } as PackageVariant;
}

export interface RevisionOptions {
  repo?: string;
  pkg?: string;
  ws: string;
  lifecycle?: "Draft" | "Proposed" | "Published" | "DeletionProposed";
  revision?: number;
  lockRef?: string;
  owner?: string | false;
  controller?: { kind: string; name: string; uid: string };
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  source?: boolean;
  creationSource?: boolean;
  deleting?: boolean;
}

/** A PackageRevision; owned by the PackageVariant fixture unless `owner: false`. */
export function revision(o: RevisionOptions): PackageRevision {
  const repo = o.repo ?? "edge01";
  const pkg = o.pkg ?? "nginx";
  const owners = [
    ...(o.owner === false
      ? []
      : [
          {
            apiVersion: "config.porch.kpt.dev/v1alpha1",
            kind: "PackageVariant",
            name: "my-pv",
            uid: o.owner ?? PV_UID,
            controller: true,
          },
        ]),
    ...(o.controller ? [{ apiVersion: "x/v1", ...o.controller, controller: true }] : []),
  ];
  return {
    apiVersion: "porch.kpt.dev/v1alpha2",
    kind: "PackageRevision",
    metadata: {
      name: `${repo}.${pkg.replace(/\//g, ".")}.${o.ws}`,
      namespace: NAMESPACE,
      ...(owners.length > 0 && { ownerReferences: owners }),
      ...(o.labels && { labels: o.labels }),
      ...(o.annotations && { annotations: o.annotations }),
      ...(o.deleting && { deletionTimestamp: new Date("2026-01-01T00:00:00Z") }),
    },
    spec: {
      repository: repo,
      packageName: pkg,
      workspaceName: o.ws,
      lifecycle: o.lifecycle ?? "Draft",
      ...(o.source && { source: { copyFrom: { name: "x" } } }),
    },
    status: {
      ...(o.revision !== undefined && { revision: o.revision }),
      ...(o.lockRef !== undefined && { upstreamLock: { type: "git", git: { ref: o.lockRef } } }),
      ...(o.creationSource && { creationSource: "copy" as const }),
    },
  } as PackageRevision;
}

/** Published upstream revision N of blueprints/nginx, workspace vN. */
export function upstreamRevision(n: number, pkg = "nginx"): PackageRevision {
  return revision({
    repo: "blueprints",
    pkg,
    ws: `v${n}`,
    lifecycle: "Published",
    revision: n,
    owner: false,
  });
}

export const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: nginx # the package
info:
  description: nginx
pipeline:
  mutators:
    - image: set-labels:v1 # upstream's own
      configMap:
        app: nginx
`;

export const PACKAGE_CONTEXT = `apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/local-config: "true"
data:
  name: nginx # set by Porch
`;
