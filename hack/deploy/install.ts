import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../cluster/paths";

// `npx pepr build` and `npx pepr deploy` as a user runs them, in a copy of the module's sources:
// both write dist/ in the current directory, which the e2e tests of this checkout read, and the
// copy's package.json carries the install's settings (`pepr.env`), as a user's would.

/** What `npx pepr build` bundles: the module's entry point and everything it imports. */
const MODULE_SOURCES = [
  "pepr.ts",
  "capabilities",
  "lib",
  "crds",
  "crd-types",
  "tsconfig.json",
  "package-lock.json",
];

/**
 * A copy of the module at `dir` (a new temporary directory unless given) with this checkout's
 * node_modules linked in and `env` merged into package.json's `pepr.env`: the settings both
 * Deployments get (README, Installing on a real cluster).
 */
export function prepareInstallDir(env: Record<string, string>, dir?: string): string {
  const target = dir ?? mkdtempSync(join(tmpdir(), "porch-pepr-install-"));
  for (const source of MODULE_SOURCES) {
    cpSync(join(repoRoot, source), join(target, source), { recursive: true });
  }
  symlinkSync(join(repoRoot, "node_modules"), join(target, "node_modules"));
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
  pkg.pepr.env = { ...pkg.pepr.env, ...env };
  writeFileSync(join(target, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  return target;
}

function npx(dir: string, args: string[], kubeconfig?: string): string {
  try {
    return execFileSync("npx", args, {
      cwd: dir,
      env: { ...process.env, ...(kubeconfig && { KUBECONFIG: kubeconfig }) },
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
      timeout: 10 * 60_000,
    }).toString();
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer; message: string };
    const tail = (b?: Buffer) => (b?.toString() ?? "").split("\n").slice(-30).join("\n");
    throw new Error(
      `npx ${args.join(" ")} failed: ${err.message}\n${tail(err.stdout)}\n${tail(err.stderr)}`,
    );
  }
}

/**
 * `npx pepr build --custom-image <image>` (dist/: the manifest, Helm chart and zarf.yaml name
 * our image), then `npx pepr deploy --yes --image <image>`: deploy builds the module again and
 * takes the image from its own `--image` (without it, the stock image of pepr's version), not
 * from the earlier build. It returns once every Deployment in pepr-system is rolled out.
 */
export function peprBuildAndDeploy(dir: string, image: string, kubeconfig: string): void {
  npx(dir, ["pepr", "build", "--custom-image", image]);
  npx(dir, ["pepr", "deploy", "--yes", "--image", image], kubeconfig);
}
