import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Kubernetes release the local control plane is built from; hack/localcluster/go.mod pins it. */
export const KUBERNETES_VERSION = "1.36.3";

export const repoRoot = resolve(__dirname, "..", "..");
/** Bump when the way binaries are built changes (flags, stamping): it re-keys the cache. */
const BUILD_RECIPE = "2";

export const localClusterModule = join(repoRoot, "hack", "localcluster");

/** The upstream main packages we build; no Go code of our own runs in the control plane. */
export const components = {
  "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
  "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
  kubectl: "k8s.io/kubernetes/cmd/kubectl",
  etcd: "go.etcd.io/etcd/server/v3",
} as const;
export type Component = keyof typeof components;

/**
 * Binaries live outside the work tree, keyed by the Kubernetes version and the go.sum, so a
 * fresh clone on a warm machine reuses them and a version bump rebuilds.
 */
export function binDir(): string {
  const base =
    process.env.PORCH_PEPR_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "porch-pepr");
  const sum = createHash("sha256")
    .update(readFileSync(join(localClusterModule, "go.sum")))
    .update(BUILD_RECIPE)
    .digest("hex")
    .slice(0, 10);
  return join(base, `k8s-v${KUBERNETES_VERSION}-${sum}`, "bin");
}

export function binary(component: Component): string {
  return join(binDir(), component);
}
