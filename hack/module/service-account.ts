import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { kubectl, writeKubeconfig } from "../cluster/control-plane";
import { moduleManifest } from "./build";

/** What `npx pepr deploy` applies for the module's identity: its account and its roles. */
const IDENTITY_KINDS = [
  "ServiceAccount",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
];

interface ManifestObject {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
}

/** The ServiceAccount and RBAC objects of the manifest `pepr build` generated, unchanged. */
export function identityObjects(manifest = moduleManifest): ManifestObject[] {
  return parseAllDocuments(readFileSync(manifest, "utf8"))
    .map(d => d.toJSON() as ManifestObject | null)
    .filter((o): o is ManifestObject => !!o && IDENTITY_KINDS.includes(o.kind ?? ""));
}

/**
 * Gives the module the identity a real install gives its Pods: applies the generated
 * ServiceAccount and its (Cluster)Role bindings, asks the TokenRequest API for a token of that
 * account and writes a kubeconfig that uses it. The module's processes then hold exactly the
 * rights the built module ships, so a missing permission fails a test instead of an install.
 */
export function moduleKubeconfig(
  admin: { kubeconfig: string; server: string; caCert: string },
  stateDir: string,
): { kubeconfig: string; username: string } {
  const objects = identityObjects();
  const account = objects.find(o => o.kind === "ServiceAccount");
  const name = account?.metadata?.name;
  const namespace = account?.metadata?.namespace;
  if (!name || !namespace) throw new Error(`${moduleManifest} has no ServiceAccount`);
  kubectl(
    admin.kubeconfig,
    ["apply", "--server-side", "--force-conflicts", "-f", "-"],
    JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  );
  // A week: longer than any local session; a Pod's projected token is rotated by the kubelet.
  const token = kubectl(admin.kubeconfig, [
    "create",
    "token",
    name,
    "-n",
    namespace,
    "--duration=168h",
  ]).trim();
  const kubeconfig = join(stateDir, "module.kubeconfig");
  writeKubeconfig(kubeconfig, admin.server, admin.caCert, { token });
  return { kubeconfig, username: `system:serviceaccount:${namespace}:${name}` };
}
