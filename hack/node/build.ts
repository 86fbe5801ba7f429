import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { builtName, goBuild, ldflags } from "../cluster/build";
import { log } from "../progress";
import { buildDir, localNodeModules, NodeBuild, nodeBuilds, nodeDir } from "./paths";

/**
 * Left next to a runc built without seccomp by earlier versions of this file, which fell back to
 * that build when libseccomp was missing. Such a binary is never reused: every Pod asking for a
 * seccomp profile fails to start under it ("seccomp not supported").
 */
export const DEGRADED_MARKER = "runc.no-seccomp";

/** Whether `build` must be built into `dir`: a binary is absent, or the build there is degraded. */
export function needsBuild(build: NodeBuild, dir = buildDir(build.dir)): boolean {
  if (existsSync(join(dir, DEGRADED_MARKER))) return true;
  return Object.keys(build.binaries).some(name => !existsSync(join(dir, name)));
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
 * Pepr controller's do) then fail to start. No such runc is built, so none is cached.
 */
function assertBuildable(key: string): void {
  if (key !== "runc" || hasLibseccomp()) return;
  throw new Error(
    "runc needs libseccomp to apply seccomp profiles, and it was not found: run `sudo apt-get install -y libseccomp-dev pkg-config` (npm test does so itself as root)",
  );
}

async function buildOne(key: string, build: NodeBuild): Promise<void> {
  assertBuildable(key);
  const target = buildDir(build.dir);
  mkdirSync(nodeDir(), { recursive: true });
  const out = mkdtempSync(join(nodeDir(), `build-${key}-`));
  try {
    await goBuild({
      module: join(localNodeModules, build.module),
      packages: Object.values(build.binaries),
      out,
      label: `go build ${key}`,
      ldflags: key === "kubernetes" ? ldflags() : build.ldflags,
      tags: build.tags,
      cgo: build.cgo,
    });
    mkdirSync(target, { recursive: true });
    for (const [name, pkg] of Object.entries(build.binaries)) {
      renameSync(join(out, builtName(pkg)), join(target, name));
    }
    rmSync(join(target, DEGRADED_MARKER), { force: true });
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
  const todo = Object.entries(nodeBuilds).filter(([, build]) => needsBuild(build));
  if (todo.length === 0) return nodeDir();
  log(`building the node (${todo.map(([k]) => k).join(", ")}) into ${nodeDir()} (first time only)`);
  mkdirSync(dirname(nodeDir()), { recursive: true });
  for (const [key, build] of todo) await buildOne(key, build);
  return nodeDir();
}
