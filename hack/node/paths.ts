import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { KUBERNETES_VERSION, repoRoot } from "../cluster/paths";

/** The node's sources: one Go module each under hack/localnode/, pinned by its go.mod. */
export const localNodeModules = join(repoRoot, "hack", "localnode");

/** Versions the go.mod files pin; they name the cache directory (the go.sums key it). */
export const NODE_VERSIONS = {
  kubernetes: KUBERNETES_VERSION,
  containerd: "2.4.2",
  runc: "1.5.2",
  cni: "1.10.0",
} as const;

/** Bump when the way binaries are built changes (flags, stamping): it re-keys the cache. */
const BUILD_RECIPE = "1";

export interface NodeBuild {
  /** The module directory under hack/localnode/. */
  module: string;
  /** Binary name in the cache → main package. */
  binaries: Record<string, string>;
  /** Subdirectory of the cache's bin/ (the CNI plugins live in a directory of their own). */
  dir?: string;
  cgo?: boolean;
  tags?: string[];
  ldflags?: string;
}

const containerdModule = "github.com/containerd/containerd/v2";
const cniPlugins = "github.com/containernetworking/plugins/plugins";

/**
 * What a node runs, by module. Kubernetes' binaries get the same version stamping as the control
 * plane's (hack/cluster/build.ts adds it); the others get their Makefiles' -X flags.
 */
export const nodeBuilds: Record<string, NodeBuild> = {
  kubernetes: {
    module: "kubernetes",
    binaries: {
      kubelet: "k8s.io/kubernetes/cmd/kubelet",
      "kube-proxy": "k8s.io/kubernetes/cmd/kube-proxy",
      "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
    },
  },
  containerd: {
    module: "containerd",
    binaries: {
      containerd: `${containerdModule}/cmd/containerd`,
      "containerd-shim-runc-v2": `${containerdModule}/cmd/containerd-shim-runc-v2`,
      ctr: `${containerdModule}/cmd/ctr`,
    },
    // Snapshotters that need C headers or kernel support this node does not use; overlayfs is.
    tags: ["no_btrfs", "no_devmapper", "no_zfs"],
    ldflags: `-s -w -X ${containerdModule}/version.Version=v${NODE_VERSIONS.containerd}`,
  },
  runc: {
    module: "runc",
    binaries: { runc: "github.com/opencontainers/runc" },
    // seccomp needs cgo and libseccomp (Debian: libseccomp-dev); Pods asking for the
    // RuntimeDefault profile fail without it. build.ts falls back, loudly, when it is missing.
    cgo: true,
    tags: ["seccomp", "urfave_cli_no_docs"],
    ldflags: `-s -w -X main.version=${NODE_VERSIONS.runc}`,
  },
  cni: {
    module: "cni",
    dir: "cni",
    binaries: {
      bridge: `${cniPlugins}/main/bridge`,
      "host-local": `${cniPlugins}/ipam/host-local`,
      loopback: `${cniPlugins}/main/loopback`,
      portmap: `${cniPlugins}/meta/portmap`,
    },
    ldflags: `-s -w`,
  },
  images: {
    module: "images",
    dir: "images",
    binaries: {
      pause: "porch-pepr/hack/localnode/images/pause",
      probe: "porch-pepr/hack/localnode/images/probe",
    },
    ldflags: `-s -w`,
  },
};

export function cacheBase(): string {
  return (
    process.env.PORCH_PEPR_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "porch-pepr")
  );
}

/**
 * The node's binaries live outside the work tree, keyed by the versions and by the upstream
 * modules' go.mod/go.sum, so a version bump rebuilds them.
 */
export function nodeDir(): string {
  const hash = createHash("sha256");
  for (const build of Object.values(nodeBuilds).filter(b => b.module !== "images")) {
    for (const file of ["go.mod", "go.sum"]) {
      hash.update(readFileSync(join(localNodeModules, build.module, file)));
    }
  }
  hash.update(BUILD_RECIPE);
  const v = NODE_VERSIONS;
  const name = `node-k8s${v.kubernetes}-containerd${v.containerd}-runc${v.runc}-cni${v.cni}`;
  return join(cacheBase(), `${name}-${hash.digest("hex").slice(0, 10)}`);
}

/**
 * Our images' binaries are keyed by their own sources (`images-<hash>`): editing the probe
 * rebuilds the probe in seconds, not the node.
 */
function imagesDir(): string {
  const hash = createHash("sha256").update(BUILD_RECIPE);
  hash.update(readFileSync(join(localNodeModules, "images", "go.mod")));
  for (const name of Object.keys(nodeBuilds.images.binaries)) {
    hash.update(readFileSync(join(localNodeModules, "images", name, "main.go")));
  }
  return `images-${hash.digest("hex").slice(0, 10)}`;
}

export function nodeBinDir(): string {
  return join(nodeDir(), "bin");
}

/** Where a build's binaries go under the cache's bin/: its `dir`, the images by their hash. */
export function buildDir(dir?: string): string {
  if (dir === "images") return join(nodeBinDir(), imagesDir());
  return dir ? join(nodeBinDir(), dir) : nodeBinDir();
}

/** Path of a built binary: `nodeBinary("kubelet")`, `nodeBinary("bridge", "cni")`. */
export function nodeBinary(name: string, dir?: string): string {
  return join(buildDir(dir), name);
}
