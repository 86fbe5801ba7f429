import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { builtName, goBuild, ldflags } from "../cluster/build";
import { log } from "../progress";
import { buildDir, localNodeModules, NodeBuild, nodeBinary, nodeBuilds, nodeDir } from "./paths";

function missing(build: NodeBuild): boolean {
  return Object.keys(build.binaries).some(name => !existsSync(nodeBinary(name, build.dir)));
}

/** libseccomp's headers and library, which runc's seccomp support links against. */
function hasLibseccomp(): boolean {
  try {
    execFileSync("pkg-config", ["--exists", "libseccomp"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * runc without libseccomp cannot apply seccomp profiles: Pods that ask for RuntimeDefault (the
 * Pepr controller's do) then fail to start. Building without it beats not building at all, but
 * it is said out loud and recorded next to the binary.
 */
function runcBuild(build: NodeBuild): NodeBuild {
  if (hasLibseccomp()) return build;
  log("libseccomp not found (Debian: apt-get install -y libseccomp-dev pkg-config):");
  log("building runc WITHOUT seccomp; Pods with a seccomp profile will fail to start");
  return { ...build, tags: build.tags?.filter(t => t !== "seccomp") };
}

async function buildOne(key: string, build: NodeBuild): Promise<void> {
  const effective = key === "runc" ? runcBuild(build) : build;
  const target = buildDir(build.dir);
  mkdirSync(nodeDir(), { recursive: true });
  const out = mkdtempSync(join(nodeDir(), `build-${key}-`));
  try {
    await goBuild({
      module: join(localNodeModules, build.module),
      packages: Object.values(build.binaries),
      out,
      label: `go build ${key}`,
      ldflags: key === "kubernetes" ? ldflags() : effective.ldflags,
      tags: effective.tags,
      cgo: effective.cgo,
    });
    mkdirSync(target, { recursive: true });
    for (const [name, pkg] of Object.entries(build.binaries)) {
      renameSync(join(out, builtName(pkg)), join(target, name));
    }
    if (effective !== build) writeFileSync(join(target, "runc.no-seccomp"), "");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Builds what a node runs (kubelet, kube-proxy, kube-scheduler, containerd and its runc shim,
 * ctr, runc, the CNI plugins, and our pause and probe images' binaries) from the modules under
 * hack/localnode/, unless the cache already holds them. Each module is built on its own, so one
 * missing binary does not rebuild the others; the Go build cache shares the Kubernetes packages
 * with the control plane's build.
 */
export async function ensureNodeBinaries(): Promise<string> {
  const todo = Object.entries(nodeBuilds).filter(([, build]) => missing(build));
  if (todo.length === 0) return nodeDir();
  log(`building the node (${todo.map(([k]) => k).join(", ")}) into ${nodeDir()} (first time only)`);
  mkdirSync(dirname(nodeDir()), { recursive: true });
  for (const [key, build] of todo) await buildOne(key, build);
  return nodeDir();
}
