// Inline package fixtures and small helpers for the kpt clone/upgrade tests.
import { parseAllDocuments } from "yaml";
import { clonePackage } from "../../../lib/kpt/clone";
import type { GitLock, PackageFiles } from "../../../lib/kpt/types";

export const LOCK_V1: GitLock = {
  repo: "https://git.example.test/blueprints.git",
  directory: "/pkg",
  ref: "pkg/v1",
  commit: "a95c696c0000000000000000000000000000000a",
};
export const LOCK_V2: GitLock = {
  ...LOCK_V1,
  ref: "pkg/v2",
  commit: "b0b0b0b00000000000000000000000000000000b",
};

export const KPTFILE_V1 = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: base
  labels:
    tier: backend
  annotations:
    owner: team-a
info:
  description: sample package
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app: demo
`;

export const DEPLOY_V1 = `# The application.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  namespace: demo
  labels:
    app: demo
spec:
  replicas: 1 # scaled by the team
  template:
    spec:
      containers:
        - name: app
          image: nginx:1.0
          args: ["--a"]
          env:
            - name: A
              value: "1"
          ports:
            - containerPort: 80
      volumes:
        - name: data
          emptyDir: {}
`;

export const SERVICE_V1 = `apiVersion: v1
kind: Service
metadata:
  name: app
  namespace: demo
spec:
  ports:
    - port: 80
      targetPort: 8080
`;

export const WIDGET_V1 = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
spec:
  size: small
  tags: [a]
  items:
    - name: one
      size: 1
`;

export const MULTI_V1 = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-a
data:
  key: a
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-b
data:
  key: b
`;

export const SUB_KPTFILE_V1 = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: sub
info:
  description: a subpackage
`;

export const SUB_CM_V1 = `apiVersion: v1
kind: ConfigMap
metadata:
  name: sub-config
data:
  mode: one
`;

/** The old upstream revision (v1). */
export function upstreamV1(): Record<string, string> {
  return {
    Kptfile: KPTFILE_V1,
    "deploy.yaml": DEPLOY_V1,
    "service.yaml": SERVICE_V1,
    "widget.yaml": WIDGET_V1,
    "multi.yaml": MULTI_V1,
    "README.md": "# v1\n",
    "sub/Kptfile": SUB_KPTFILE_V1,
    "sub/cm.yaml": SUB_CM_V1,
  };
}

/** The local package as cloned from v1. */
export function clonedV1(): Record<string, string> {
  return clonePackage(upstreamV1(), LOCK_V1, "mypkg");
}

/** A change to a package: [path, from, to] replaces text (must occur), [path, null] deletes, [path, content] when the path is new adds. */
export type Edit = readonly [path: string, from: string | null, to?: string];

export function applyEdits(files: PackageFiles, edits: readonly Edit[]): Record<string, string> {
  const out: Record<string, string> = { ...files };
  for (const [path, from, to] of edits) {
    if (from === null) {
      if (!(path in out)) throw new Error(`fixture: cannot delete missing ${path}`);
      delete out[path];
    } else if (to === undefined) {
      out[path] = from;
    } else {
      const content = out[path];
      if (content === undefined || !content.includes(from))
        throw new Error(`fixture: ${JSON.stringify(from)} not found in ${path}`);
      out[path] = content.replace(from, to);
    }
  }
  return out;
}

/** Plain JS objects of all documents of a file. */
export function objects(files: PackageFiles, path: string): Record<string, unknown>[] {
  const content = files[path];
  if (content === undefined) throw new Error(`no file ${path}`);
  return parseAllDocuments(content as string)
    .map(doc => doc.toJS() as Record<string, unknown>)
    .filter(value => value !== null);
}

/** Value at a dotted path with numeric list indexes, e.g. `spec.template.spec.containers.0.image`. */
export function pick(value: unknown, path: string): unknown {
  let current = value;
  for (const segment of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

export function at(files: PackageFiles, file: string, path: string, index = 0): unknown {
  return pick(objects(files, file)[index], path);
}
