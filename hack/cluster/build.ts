import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { Bar, log } from "../progress";
import { binary, binDir, components, KUBERNETES_VERSION, localClusterModule } from "./paths";

/** Name `go build -o <dir>/` gives a main package: the last path element, skipping a /vN suffix. */
export function builtName(pkg: string): string {
  const parts = pkg.split("/");
  const last = parts[parts.length - 1];
  return /^v\d+$/.test(last) ? parts[parts.length - 2] : last;
}

/** Stamps the release into the binaries as Kubernetes' own build does (else "v0.0.0-master"). */
export function ldflags(): string {
  const [major, minor] = KUBERNETES_VERSION.split(".");
  const stamp = (pkg: string) => [
    `-X ${pkg}.gitVersion=v${KUBERNETES_VERSION}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ];
  return [
    "-s",
    "-w",
    ...stamp("k8s.io/component-base/version"),
    ...stamp("k8s.io/client-go/pkg/version"),
  ].join(" ");
}

function missingComponents(): string[] {
  return Object.keys(components).filter(c => !existsSync(binary(c as keyof typeof components)));
}

export interface GoBuild {
  /** The module whose go.mod pins the packages. */
  module: string;
  packages: string[];
  /** Directory `go build -o <dir>/` writes the binaries into. */
  out: string;
  label: string;
  ldflags?: string;
  tags?: string[];
  /** cgo is off (static binaries) unless a package needs a C library (runc: libseccomp). */
  cgo?: boolean;
}

/**
 * Runs `go build` with a progress bar: packages compiled out of all dependencies (a cold build
 * takes minutes on two cores). Throws with the compiler's last lines if it fails.
 */
export async function goBuild(build: GoBuild): Promise<void> {
  const env = { ...process.env, CGO_ENABLED: build.cgo ? "1" : "0" };
  const tags = build.tags?.length ? [`-tags=${build.tags.join(",")}`] : [];
  const total = execFileSync("go", ["list", ...tags, "-deps", ...build.packages], {
    cwd: build.module,
    env,
    maxBuffer: 64 * 1024 * 1024,
  })
    .toString()
    .split("\n")
    .filter(Boolean).length;
  const bar = new Bar(build.label, total);
  const args = [
    "build",
    "-v",
    "-trimpath",
    ...tags,
    ...(build.ldflags ? [`-ldflags=${build.ldflags}`] : []),
    "-o",
    `${build.out}/`,
    ...build.packages,
  ];
  const child = spawn("go", args, { cwd: build.module, env });
  let built = 0;
  const errors: string[] = [];
  createInterface({ input: child.stderr }).on("line", line => {
    // `go build -v` prints each package it compiles; anything else is a diagnostic.
    if (/^[\w.-]+(\/[\w.~+-]+)*$/.test(line)) bar.update(++built);
    else errors.push(line);
  });
  const code = await new Promise<number>(res => child.on("close", c => res(c ?? 1)));
  if (code !== 0) {
    throw new Error(`go build failed (exit ${code}):\n${errors.slice(-40).join("\n")}`);
  }
  bar.done();
}

/**
 * Builds kube-apiserver, kube-controller-manager, kubectl and etcd from the official modules
 * pinned in hack/localcluster/go.mod, unless the cache already holds them.
 */
export async function ensureBinaries(): Promise<void> {
  if (missingComponents().length === 0) return;
  const packages = Object.values(components);
  log(`building Kubernetes v${KUBERNETES_VERSION} components into ${binDir()} (first time only)`);
  mkdirSync(dirname(binDir()), { recursive: true });
  const out = mkdtempSync(join(dirname(binDir()), "build-"));
  try {
    await goBuild({
      module: localClusterModule,
      packages,
      out,
      label: "go build",
      ldflags: ldflags(),
    });
    mkdirSync(binDir(), { recursive: true });
    for (const [name, pkg] of Object.entries(components)) {
      renameSync(join(out, builtName(pkg)), join(binDir(), name));
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
