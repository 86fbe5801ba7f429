import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the control plane's kubectl (global setup put it first on PATH) against the test cluster. */
export function kubectl(args: string[], input?: string): KubectlResult {
  const result = spawnSync("kubectl", args, { input, encoding: "utf8", env: process.env });
  return { code: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** Like kubectl() but fails the test with kubectl's own message when the command fails. */
export function kubectlOk(args: string[], input?: string): string {
  const result = kubectl(args, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

/** The arguments of `kubectl patch --type=merge` of one object with `patch`. */
export const mergePatchArgs = (
  resource: string,
  name: string,
  namespace: string,
  patch: object,
) => ["patch", resource, name, "-n", namespace, "--type=merge", "-p", JSON.stringify(patch)];

/** A merge patch of one object, as a user makes it; fails the test when kubectl fails. */
export const mergePatch = (resource: string, name: string, namespace: string, patch: object) =>
  kubectlOk(mergePatchArgs(resource, name, namespace, patch));

/** A fresh namespace for one test file; delete it in afterAll. */
export function createNamespace(prefix: string): string {
  const name = `${prefix}-${randomBytes(3).toString("hex")}`;
  kubectlOk(["create", "namespace", name]);
  return name;
}

/** `kubectl get -o json`, parsed; undefined when the object does not exist. */
export function getJson<T = Record<string, any>>(
  resource: string,
  name: string,
  namespace: string,
): T | undefined {
  const result = kubectl([
    "get",
    resource,
    name,
    "-n",
    namespace,
    "-o",
    "json",
    "--ignore-not-found",
  ]);
  if (result.code !== 0) throw new Error(result.stderr);
  return result.stdout.trim() ? (JSON.parse(result.stdout) as T) : undefined;
}

/** `kubectl get <resource> -o json` items, optionally by label selector. */
export function listJson<T = Record<string, any>>(
  resource: string,
  namespace: string,
  selector?: string,
): T[] {
  const args = [
    "get",
    resource,
    "-n",
    namespace,
    "-o",
    "json",
    ...(selector ? ["-l", selector] : []),
  ];
  return (JSON.parse(kubectlOk(args)) as { items: T[] }).items;
}

/** Deletes a namespace without waiting; objects whose finalizer nobody removes get theirs cleared. */
export function deleteNamespace(namespace: string, clearFinalizersOf: string[] = []): void {
  for (const resource of clearFinalizersOf) {
    for (const item of listJson<{ metadata: { name: string } }>(resource, namespace)) {
      kubectl(
        mergePatchArgs(resource, item.metadata.name, namespace, { metadata: { finalizers: null } }),
      );
    }
  }
  kubectl(["delete", "namespace", namespace, "--wait=false"]);
}

/** The ServiceAccount the module runs as (hack/module/service-account.ts). */
export const MODULE_ACCOUNT = { namespace: "pepr-system", name: "pepr-porch-pepr" };

/**
 * Lets the module read one more kind, as a cluster admin does when allowing a kind for object
 * selectors and injectors: the module's ClusterRole grants only what it ships with.
 */
export function grantModuleRead(group: string, resource: string): void {
  const name = `porch-pepr-read-${resource}.${group}`;
  kubectlOk(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: [
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRole",
          metadata: { name },
          rules: [{ apiGroups: [group], resources: [resource], verbs: ["get", "list", "watch"] }],
        },
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
          subjects: [{ kind: "ServiceAccount", ...MODULE_ACCOUNT }],
        },
      ],
    }),
  );
}

/** Binds `user` to the ClusterRole `role` in `namespace` (a RoleBinding named for both). */
export function bindRole(namespace: string, user: string, role: string): void {
  kubectlOk([
    "create",
    "rolebinding",
    `${user}-${role}`,
    "-n",
    namespace,
    `--clusterrole=${role}`,
    `--user=${user}`,
  ]);
}
