import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { builtName, goBuild } from "../cluster/build";
import { repoRoot } from "../cluster/paths";
import { binaryImage, ociArchive, type ImageSpec } from "../node/oci";
import { imageName } from "../node/node";
import { cacheBase } from "../node/paths";

// The function side of the Pod runtime (README, "Functions as Pods"), built from the Go module
// hack/functions/: the wrapper image (what an init container copies into each function Pod)
// and the labeller, a KRM function image the deploy suite runs as a Pod. No registry is
// reachable here, so both are OCI archives for `ctr images import`, tagged by content.
// hack/functions/ is a module of its own, not under hack/localnode/: the node's cache is keyed
// by those modules, and a change to a function must not rebuild the node.

export const FUNCTIONS_MODULE = join(repoRoot, "hack", "functions");

const BINARIES = {
  "function-wrapper": "porch-pepr/hack/functions/wrapper",
  labeller: "porch-pepr/hack/functions/labeller",
} as const;

/** Bump when the way the binaries or images are made changes: it re-keys the cache. */
const RECIPE = "1";

/** Every file the binaries are built from (tests excluded), by path relative to the module. */
function sources(dir = FUNCTIONS_MODULE): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap(entry => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sources(path);
      return entry.name.endsWith("_test.go") ? [] : [path];
    })
    .sort();
}

/** The cache directory, keyed by the sources, the Go version and the recipe. */
export function functionsDir(): string {
  const hash = createHash("sha256").update(RECIPE);
  hash.update(execFileSync("go", ["env", "GOVERSION"], { encoding: "utf8" }).trim());
  for (const path of sources()) {
    hash.update(relative(FUNCTIONS_MODULE, path)).update("\0").update(readFileSync(path));
  }
  return join(cacheBase(), `functions-${hash.digest("hex").slice(0, 10)}`);
}

/**
 * The wrapper must run in any image, so it links nothing but the standard library (and is
 * static: cgo is off in goBuild). Checked before each build, not only said in a comment.
 */
function checkWrapperImports(): void {
  const outside = execFileSync(
    "go",
    ["list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./wrapper"],
    { cwd: FUNCTIONS_MODULE, encoding: "utf8", env: { ...process.env, CGO_ENABLED: "0" } },
  )
    .split("\n")
    .filter(line => line && line !== BINARIES["function-wrapper"]);
  if (outside.length > 0)
    throw new Error(`the function wrapper must use the Go standard library only: ${outside}`);
}

/** Builds the binaries into the cache unless they are there; returns its directory. */
export async function ensureFunctionBinaries(onStep: (what: string) => void): Promise<string> {
  const dir = functionsDir();
  if (Object.keys(BINARIES).every(name => existsSync(join(dir, name)))) return dir;
  onStep(`building hack/functions (wrapper, labeller) into ${dir}`);
  checkWrapperImports();
  mkdirSync(cacheBase(), { recursive: true });
  const out = mkdtempSync(`${dir}.build-`);
  try {
    await goBuild({
      module: FUNCTIONS_MODULE,
      packages: Object.values(BINARIES),
      out,
      label: "go build hack/functions",
      ldflags: "-s -w",
    });
    for (const [name, pkg] of Object.entries(BINARIES)) {
      renameSync(join(out, builtName(pkg)), join(out, name));
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(out, dir);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  return dir;
}

/** `go test ./...` in hack/functions: the wrapper's and the labeller's own tests. */
export function testFunctions(): string {
  try {
    return execFileSync("go", ["test", "./..."], {
      cwd: FUNCTIONS_MODULE,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 10 * 60_000,
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`go test ./... in hack/functions failed:\n${err.stdout}\n${err.stderr}`);
  }
}

export interface FunctionImage {
  ref: string;
  archive: string;
}

export interface FunctionImages {
  /** The wrapper's image: its entrypoint is the wrapper (`/function-wrapper`). */
  wrapper: FunctionImage;
  /** The labeller, with its entrypoint where kpt's catalog puts it. */
  labeller: FunctionImage;
}

/** A KRM function image as kpt's catalog lays them out: the binary at /usr/local/bin/function. */
function functionImage(ref: string, binary: Buffer): ImageSpec {
  return {
    name: ref,
    entrypoint: ["/usr/local/bin/function"],
    user: "65532",
    layers: [
      [
        { path: "etc/" },
        { path: "tmp/", mode: 0o1777 },
        { path: "usr/" },
        { path: "usr/local/" },
        { path: "usr/local/bin/" },
        { path: "usr/local/bin/function", data: binary, mode: 0o755 },
      ],
    ],
  };
}

/** Builds what is missing and writes both image archives (cached with the binaries). */
export async function ensureFunctionImages(
  onStep: (what: string) => void,
): Promise<FunctionImages> {
  const dir = await ensureFunctionBinaries(onStep);
  const image = (name: keyof typeof BINARIES, spec: (ref: string, bin: Buffer) => ImageSpec) => {
    const binary = readFileSync(join(dir, name));
    const ref = imageName(name, binary);
    const archive = join(dir, `${name}.oci.tar`);
    if (!existsSync(archive)) writeFileSync(archive, ociArchive(spec(ref, binary)));
    return { ref, archive };
  };
  return {
    wrapper: image("function-wrapper", (ref, bin) => binaryImage(ref, bin, "65532")),
    labeller: image("labeller", functionImage),
  };
}
